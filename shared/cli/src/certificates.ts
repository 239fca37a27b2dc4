// `certsvc certificates …`: a batch's certificates listed (every page), counted, found by email,
// sent and deleted.
import fs from 'node:fs';
import { collect, type CertificateServiceClient, type Recipient } from '@certificate-service/sdk';
import { print, type Context, type Run } from './command';
import { confirm } from './confirm';
import { toCsv } from './csv-write';
import { userPath } from './paths';

/** The recipient's fields as the API names them (spec section 2), then one `data.<name>` column per variable. */
const FIELDS = ['id', 'batchId', 'certificateId', 'name', 'email', 'emailStatus', 'emailSentAt', 'issueDate', 'expiryDate', 'createdAt', 'certUrl', 'shareToken'] as const;

/** Cells a spreadsheet would run are guarded and a byte-order mark leads, unless `bom` is false (csv-write.ts); `--json` has the values as they are. */
export function certificatesCsv(certificates: readonly Recipient[], bom: boolean): string {
  const names = [...new Set(certificates.flatMap((c) => Object.keys(c.data ?? {})))];
  const records = certificates.map((c) => [...FIELDS.map((f) => c[f] ?? ''), ...names.map((n) => (c.data && Object.hasOwn(c.data, n) ? c.data[n] : ''))]);
  return toCsv(records, { columns: [...FIELDS, ...names.map((n) => `data.${n}`)], bom });
}

/** A certificate named by its certificate ID (CERT-…, looked up), or by its recipient id with --batch. */
async function target(client: CertificateServiceClient, id: string, batch: string | undefined): Promise<{ batchId: string; recipientId: string; label: string }> {
  if (batch !== undefined && !/^CERT-/i.test(id.trim())) return { batchId: batch, recipientId: id, label: `${id} in batch ${batch}` };
  const c = await client.getCertificate(id);
  return { batchId: c.batchId, recipientId: c.id, label: `${c.certificateId} (${c.email}, batch ${c.batchId})` };
}

export interface CertificatesFlags {
  batch: string;
  emailStatus?: string;
}

const all = ({ connection }: Context, flags: CertificatesFlags) => collect(connection.client.iterateRecipients(flags.batch, { emailStatus: flags.emailStatus }));

/** `certsvc certificates list`: every certificate of a batch (every page), as a table, `--json`, or `--csv <file>`. */
export const listCertificates: Run<CertificatesFlags & { csv?: string; json?: boolean; bom: boolean }> = async (flags, context) => {
  const { io } = context;
  const list = await all(context, flags);
  if (flags.csv !== undefined) {
    const file = userPath(flags.csv, io.cwd, io.env);
    fs.writeFileSync(file, certificatesCsv(list, flags.bom));
    io.stderr.write(`Wrote ${list.length} certificate${list.length === 1 ? '' : 's'} to ${file}\n`);
    io.stdout.write(`${JSON.stringify({ count: list.length, csv: file })}\n`);
  } else if (flags.json) print(io, list);
  else io.stdout.write(['certificateId\temail\temailStatus\tcertUrl', ...list.map((c) => [c.certificateId, c.email, c.emailStatus, c.certUrl].join('\t'))].join('\n') + '\n');
  return 0;
};

/** `certsvc certificates count` (reads every page). */
export const countCertificates: Run<CertificatesFlags> = async (flags, context) => {
  const list = await all(context, flags);
  context.io.stdout.write(`${JSON.stringify({ batchId: flags.batch, ...(flags.emailStatus ? { emailStatus: flags.emailStatus } : {}), count: list.length })}\n`);
  return 0;
};

/** `certsvc certificates find`: exit 1 when the batch has no certificate for the email. */
export const findCertificate: Run<{ batch: string; email: string }> = async (flags, { connection, io }) => {
  const found = await connection.client.findRecipientByEmail(flags.batch, flags.email);
  if (found) return print(io, found);
  io.stderr.write(`No certificate for ${flags.email} in batch ${flags.batch} (every page read).\n`);
  return 1;
};

interface TargetFlags {
  /** A certificate ID, or a recipient id with --batch. */
  id: string;
  batch?: string;
}

/** `certsvc certificates send`: no question, since sending is what was typed. */
export const sendCertificate: Run<TargetFlags> = async (flags, { connection: { client }, io }) => {
  const t = await target(client, flags.id, flags.batch);
  return print(io, await client.sendCertificate(t.batchId, t.recipientId));
};

/** `certsvc certificates delete`: asks first (see confirm.ts); exit 1 when the answer is no. */
export const deleteCertificate: Run<TargetFlags & { yes?: boolean }> = async (flags, { connection: { client }, io }) => {
  const t = await target(client, flags.id, flags.batch);
  if (!(await confirm(`Delete certificate ${t.label}?`, flags.yes, io))) {
    io.stderr.write('Nothing deleted.\n');
    return 1;
  }
  return print(io, await client.deleteRecipient(t.batchId, t.recipientId));
};
