// The first-contact check behind `certsvc doctor` and the MCP server's `doctor` tool: read-only
// calls to every list and lookup the connectors use, and for each the status, the RateLimit-*
// headers, the list wrapper and cursor field recognised, and whether every field the connectors
// read is there. Hosts supply a client whose transport reports each answer (`observeAnswer`)
// and word the report themselves.
import { endpointName, ENDPOINTS } from './client/endpoints';
import type { CertificateServiceClient } from './client';
import { CertificateServiceError } from './errors';
import { describeList } from './decode';
import { getHeader } from './headers';
import type { HttpResponse } from './transport';

/** The fields the connectors read, per resource (spec section 2); one list, used by this check only. */
export const FIELDS_READ = {
  workspace: ['workspaceId', 'username'],
  batch: ['id', 'title', 'designId', 'status'],
  design: ['id'],
  certificate: ['id', 'batchId', 'name', 'email', 'certificateId', 'shareToken', 'certUrl', 'issueDate', 'expiryDate', 'data', 'emailStatus', 'emailSentAt', 'createdAt'],
  subscription: ['id', 'url', 'events'],
} as const;

/** One answer as the check saw it. */
export interface ObservedAnswer {
  status: number;
  /** `limit=… remaining=… reset=…`, `-` for a header that was not sent. */
  rateLimit: string;
  body: unknown;
}

/** What a host's observing transport records of each response. */
export function observeAnswer(response: HttpResponse): ObservedAnswer {
  const rateLimit = ['Limit', 'Remaining', 'Reset'].map((k) => `${k.toLowerCase()}=${getHeader(response.headers, `RateLimit-${k}`) ?? '-'}`).join(' ');
  let body: unknown = response.body ?? null;
  if (typeof body === 'string') {
    try {
      body = body ? JSON.parse(body) : null;
    } catch {
      // kept as text: describeList says what it is
    }
  }
  return { status: response.status, rateLimit, body };
}

export interface FirstContactCheck {
  endpoint: string;
  /** The last answer of the check's calls; undefined when none came. */
  answer?: { status: number; rateLimit: string };
  /** What was found, one fact a line. */
  lines: string[];
  failed: boolean;
}

/**
 * Runs the checks in order. `lastAnswer` returns what the client's transport saw last, and
 * `forget` clears it between checks. Never throws a CertificateServiceError: a refused or
 * unreadable answer is a failed check naming what came back.
 */
export async function checkFirstContact(client: CertificateServiceClient, lastAnswer: () => ObservedAnswer | undefined, forget: () => void): Promise<FirstContactCheck[]> {
  const firstBatch = async () => (await client.listBatches({ limit: 1, status: 'all' })).items[0]?.id;
  const checks: Array<{ endpoint: string; run: () => Promise<unknown>; fields: readonly string[] }> = [
    { endpoint: endpointName(ENDPOINTS.auth), run: () => client.auth(), fields: FIELDS_READ.workspace },
    { endpoint: endpointName(ENDPOINTS.listBatches), run: () => client.listBatches({ limit: 5, status: 'all' }), fields: FIELDS_READ.batch },
    { endpoint: endpointName(ENDPOINTS.listDesigns), run: () => client.listDesigns(), fields: FIELDS_READ.design },
    {
      endpoint: endpointName(ENDPOINTS.listRecipients),
      run: async () => {
        const batchId = await firstBatch();
        return batchId ? client.listRecipients(batchId, { limit: 5 }) : undefined;
      },
      fields: FIELDS_READ.certificate,
    },
    { endpoint: endpointName(ENDPOINTS.listSubscriptions), run: () => client.listSubscriptions(), fields: FIELDS_READ.subscription },
  ];

  const out: FirstContactCheck[] = [];
  for (const check of checks) {
    forget();
    const lines: string[] = [];
    let failed = false;
    try {
      const value = await check.run();
      if (value === undefined) {
        lines.push('skipped: the workspace has no batch to list certificates of');
      } else {
        const list = describeList(lastAnswer()?.body);
        const items = value && typeof value === 'object' && 'items' in value ? (value as { items: unknown[] }).items : [value];
        if (check.endpoint !== endpointName(ENDPOINTS.auth)) lines.push(`list: wrapper ${list?.wrapper ?? '?'}, next-page cursor ${list?.cursorField ?? '(none in this answer)'}`);
        const first = items[0] as Record<string, unknown> | undefined;
        if (!first) lines.push(`fields: not checked (the list is empty)`);
        else {
          const missing = check.fields.filter((f) => !(f in first));
          lines.push(missing.length ? `fields: MISSING ${missing.join(', ')}` : `fields: all ${check.fields.length} the connectors read are present`);
          failed = missing.length > 0;
        }
      }
    } catch (error) {
      if (!(error instanceof CertificateServiceError)) throw error;
      failed = true;
      lines.push(`FAILED (${error.code}): ${error.message}`);
    }
    const last = lastAnswer();
    out.push({ endpoint: check.endpoint, ...(last ? { answer: { status: last.status, rateLimit: last.rateLimit } } : {}), lines, failed });
  }
  return out;
}
