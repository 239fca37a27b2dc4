// `certsvc doctor`: the first-contact check. Read-only calls to every list and lookup the
// connectors use, and for each: the status, the RateLimit-* headers, the list wrapper and cursor
// field recognised, and whether every field the connectors read is there. Exit 1 on any answer
// the core cannot read (naming the keys it saw) or any field missing; run it before a release
// against the live service, or when the service announces a new API version.
import { CertificateServiceError, describeList, getHeader, type HttpRequest, type HttpResponse } from '@certificate-service/sdk';
import type { Connection } from './connect';

/** The fields the connectors read, per resource (spec section 2); one list, used by this check only. */
export const FIELDS_READ = {
  workspace: ['workspaceId', 'username'],
  batch: ['id', 'title', 'designId', 'status'],
  design: ['id'],
  certificate: ['id', 'batchId', 'name', 'email', 'certificateId', 'shareToken', 'certUrl', 'issueDate', 'expiryDate', 'data', 'emailStatus', 'emailSentAt', 'createdAt'],
  subscription: ['id', 'url', 'events'],
} as const;

interface Check {
  endpoint: string;
  run: () => Promise<unknown>;
  fields: readonly string[];
}

interface Seen {
  status: number;
  rateLimit: string;
  body: unknown;
}

const parse = (body: unknown): unknown => {
  if (typeof body !== 'string') return body ?? null;
  try {
    return body ? JSON.parse(body) : null;
  } catch {
    return body;
  }
};

/** Runs the checks; writes one block per endpoint to `out`. Returns the exit code. */
export async function runDoctor(connect: (observe: (request: HttpRequest, response: HttpResponse) => void) => Connection, out: NodeJS.WritableStream): Promise<number> {
  const seen: { last?: Seen } = {};
  // Read through a function: TypeScript cannot see that the transport's callback sets it.
  const lastSeen = (): Seen | undefined => seen.last;
  const { client } = connect((_request, response) => {
    const rate = ['Limit', 'Remaining', 'Reset'].map((k) => `${k.toLowerCase()}=${getHeader(response.headers, `RateLimit-${k}`) ?? '-'}`).join(' ');
    seen.last = { status: response.status, rateLimit: rate, body: parse(response.body) };
  });
  const firstBatch = async () => (await client.listBatches({ limit: 1, status: 'all' })).items[0]?.id;
  const checks: Check[] = [
    { endpoint: 'POST /auth', run: () => client.auth(), fields: FIELDS_READ.workspace },
    { endpoint: 'GET /batches', run: () => client.listBatches({ limit: 5, status: 'all' }), fields: FIELDS_READ.batch },
    { endpoint: 'GET /designs', run: () => client.listDesigns(), fields: FIELDS_READ.design },
    {
      endpoint: 'GET /batches/{batchId}/recipients',
      run: async () => {
        const batchId = await firstBatch();
        return batchId ? client.listRecipients(batchId, { limit: 5 }) : undefined;
      },
      fields: FIELDS_READ.certificate,
    },
    { endpoint: 'GET /webhooks/subscriptions', run: () => client.listSubscriptions(), fields: FIELDS_READ.subscription },
  ];

  let failed = 0;
  for (const check of checks) {
    seen.last = undefined;
    const lines: string[] = [];
    try {
      const value = await check.run();
      if (value === undefined) {
        lines.push('skipped: the workspace has no batch to list certificates of');
      } else {
        const list = describeList(lastSeen()?.body);
        const items = value && typeof value === 'object' && 'items' in value ? (value as { items: unknown[] }).items : [value];
        if (check.endpoint !== 'POST /auth') lines.push(`list: wrapper ${list?.wrapper ?? '?'}, next-page cursor ${list?.cursorField ?? '(none in this answer)'}`);
        const first = items[0] as Record<string, unknown> | undefined;
        if (!first) lines.push(`fields: not checked (the list is empty)`);
        else {
          const missing = check.fields.filter((f) => !(f in first));
          lines.push(missing.length ? `fields: MISSING ${missing.join(', ')}` : `fields: all ${check.fields.length} the connectors read are present`);
          if (missing.length) failed++;
        }
      }
    } catch (error) {
      if (!(error instanceof CertificateServiceError)) throw error;
      failed++;
      lines.push(`FAILED (${error.code}): ${error.message}`);
    }
    const last = lastSeen();
    const head = last ? `${last.status}  RateLimit ${last.rateLimit}` : 'no answer';
    out.write(`${check.endpoint}  ${head}\n${lines.map((l) => `  ${l}\n`).join('')}`);
  }
  out.write(failed ? `\n${failed} check${failed > 1 ? 's' : ''} failed: the connectors cannot rely on these answers.\n` : '\nEvery answer has a shape the connectors read.\n');
  return failed ? 1 : 0;
}
