import fs from 'node:fs';
import { Command, Option } from 'commander';
import type { CertificateServiceClient, Recipient } from '@certificate-service/sdk';
import { confirm, type Terminal } from './confirm';
import { toCsv } from './csv-write';
import { userPath } from './paths';

export interface CertificatesIo extends Terminal {
  stdout: NodeJS.WritableStream;
  /** Where a relative --csv file name resolves from (paths.ts). */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

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

const batchOption = () => new Option('--batch <batchId>', 'batch id (see certsvc batches list)').makeOptionMandatory();
const emailStatusOption = () => new Option('--email-status <status>', 'only certificates whose email is in this state (e.g. sent)');
const idArgument = 'certificate ID (CERT-…), or the recipient id (rec_…) with --batch';

/**
 * `certsvc certificates …`: a batch's certificates listed (every page), counted, found by email,
 * sent and deleted. Delete asks first (see confirm.ts); send does not, since sending is what was typed.
 */
export function registerCertificates(cli: Command, client: (command: Command) => CertificateServiceClient, io: CertificatesIo, result: { exitCode: number }): void {
  const print = (value: unknown) => void io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  const all = async (c: CertificateServiceClient, batch: string, emailStatus?: string) => {
    const out: Recipient[] = [];
    for await (const r of c.iterateRecipients(batch, { emailStatus })) out.push(r);
    return out;
  };
  const certificates = cli.command('certificates').description("a batch's certificates: list, count, find, send, delete");
  certificates
    .command('list')
    .description('every certificate of a batch (all pages): a table, or --json, or --csv <file> with the API\'s field names')
    .addOption(batchOption())
    .addOption(emailStatusOption())
    .addOption(new Option('--csv <file>', 'write them to this CSV file (columns: the API\'s field names, then data.<variable>)').conflicts('json'))
    .option('--json', 'print them as a JSON array')
    .option('--no-bom', 'write the CSV without the UTF-8 byte-order mark that Excel needs to read it as UTF-8')
    .action(async (o: { batch: string; emailStatus?: string; csv?: string; json?: boolean; bom: boolean }, command: Command) => {
      const list = await all(client(command), o.batch, o.emailStatus);
      if (o.csv !== undefined) {
        const file = userPath(o.csv, io.cwd, io.env);
        fs.writeFileSync(file, certificatesCsv(list, o.bom));
        io.stderr.write(`Wrote ${list.length} certificate${list.length === 1 ? '' : 's'} to ${file}\n`);
        io.stdout.write(`${JSON.stringify({ count: list.length, csv: file })}\n`);
      } else if (o.json) print(list);
      else io.stdout.write(['certificateId\temail\temailStatus\tcertUrl', ...list.map((c) => [c.certificateId, c.email, c.emailStatus, c.certUrl].join('\t'))].join('\n') + '\n');
    });
  certificates
    .command('count')
    .description('how many certificates a batch has (reads every page)')
    .addOption(batchOption())
    .addOption(emailStatusOption())
    .action(async (o: { batch: string; emailStatus?: string }, command: Command) => {
      const list = await all(client(command), o.batch, o.emailStatus);
      io.stdout.write(`${JSON.stringify({ batchId: o.batch, ...(o.emailStatus ? { emailStatus: o.emailStatus } : {}), count: list.length })}\n`);
    });
  certificates
    .command('find')
    .description("the certificate issued to an email in a batch (any case); exit 1 when there is none")
    .addOption(batchOption())
    .requiredOption('--email <email>', 'the recipient\'s email')
    .action(async (o: { batch: string; email: string }, command: Command) => {
      const found = await client(command).findRecipientByEmail(o.batch, o.email);
      if (found) return print(found);
      io.stderr.write(`No certificate for ${o.email} in batch ${o.batch} (every page read).\n`);
      result.exitCode = 1;
    });
  certificates
    .command('send')
    .description('queue the certificate email (again) for one certificate')
    .argument('<id>', idArgument)
    .option('--batch <batchId>', 'the batch, when <id> is a recipient id')
    .action(async (id: string, o: { batch?: string }, command: Command) => {
      const c = client(command);
      const t = await target(c, id, o.batch);
      print(await c.sendCertificate(t.batchId, t.recipientId));
    });
  certificates
    .command('delete')
    .description('delete one certificate (asks first; --yes without a terminal)')
    .argument('<id>', idArgument)
    .option('--batch <batchId>', 'the batch, when <id> is a recipient id')
    .option('--yes', 'do not ask (needed without a terminal)')
    .action(async (id: string, o: { batch?: string; yes?: boolean }, command: Command) => {
      const c = client(command);
      const t = await target(c, id, o.batch);
      if (!(await confirm(`Delete certificate ${t.label}?`, o.yes, io))) {
        io.stderr.write('Nothing deleted.\n');
        result.exitCode = 1;
        return;
      }
      print(await c.deleteRecipient(t.batchId, t.recipientId));
    });
}
