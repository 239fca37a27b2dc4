// Every `certsvc` command: its words and flags here, its work in a Run (command.ts) in its own
// file, or here when it is one call whose answer is printed.
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { collect, DEFAULT_MEMORY_STORE_SIZE, EVENT_TYPES, type EventType } from '@certificate-service/sdk';
import { countCertificates, deleteCertificate, findCertificate, listCertificates, sendCertificate } from './certificates';
import { action, print, type Run } from './command';
import { confirm } from './confirm';
import { runDoctor } from './doctor';
import { runDryRun } from './dry-run';
import { count, N8N_VERIFY_MEMORY, runRecover } from './events-recover';
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_WAIT_MS } from './forward';
import { runIssue, type IssueFlags } from './issue';
import { runMcp } from './mcp';
import type { Io } from './io';
import { userPath } from './paths';
import { runSubscriptionTest } from './subscriptions-test';
import { runVerify } from './verify';

const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '../package.json'), 'utf8')) as { version: string };

/** `certsvc issue`: file names as typed, resolved from the user's folder (paths.ts); `--dry-run` sends nothing. */
const issue: Run<IssueFlags & { dryRun?: boolean }> = (o, context) => {
  const here = (file: string) => userPath(file, context.io.cwd, context.io.env);
  const flags = { ...o, csv: here(o.csv), errors: o.errors === undefined ? undefined : here(o.errors), out: o.out === undefined ? undefined : here(o.out) };
  return o.dryRun ? runDryRun(flags, context) : runIssue(flags, context);
};

/** The command line; each command's exit code is set in `result`. */
export function program(result: { exitCode: number }, io: Io): Command {
  const on = <Flags>(command: Command, run: Run<Flags>) => action(command, run, io, (code) => (result.exitCode = code));
  const cli = new Command('certsvc')
    .description('Issue and look up certificates of the Certificate Service.')
    .version(version)
    .addOption(new Option('--api-key <key>', 'API key (env: CERTSVC_API_KEY)'))
    .addOption(new Option('--base-url <url>', 'service URL, e.g. https://<host>/api/v1 (env: CERTSVC_BASE_URL)'))
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .showHelpAfterError('(run certsvc --help for usage)');

  on(cli.command('auth').description('check the API key; prints the workspace'), async (_f, { connection }) => print(io, await connection.client.auth()));

  const batches = cli.command('batches').description('list, create, archive or unarchive batches');
  on(
    batches
      .command('list')
      .description('every batch, as a JSON array')
      .addOption(new Option('--status <status>', 'which batches').choices(['active', 'archived', 'all']).default('active')),
    async (f: { status: 'active' | 'archived' | 'all' }, { connection }) => print(io, await collect(connection.client.iterateBatches({ status: f.status }))),
  );
  on(
    batches.command('create').description('create a batch; prints it').requiredOption('--title <title>', 'batch title').requiredOption('--design <designId>', 'design id (see certsvc designs list)'),
    async (f: { title: string; design: string }, { connection }) => print(io, await connection.client.createBatch({ title: f.title, designId: f.design })),
  );
  // An archived batch refuses new certificates (BATCH_ARCHIVED: "unarchive it before issuing").
  on(
    batches.command('archive').description('archive a batch (it then refuses new certificates); prints it').argument('<batchId>', 'e.g. batch_… (see certsvc batches list)'),
    async (f: { batchId: string }, { connection }) => print(io, await connection.client.archiveBatch(f.batchId)),
  );
  on(
    batches
      .command('unarchive')
      .description('make an archived batch active again, so it takes new certificates; prints it')
      .argument('<batchId>', 'e.g. batch_… (see certsvc batches list --status archived)'),
    async (f: { batchId: string }, { connection }) => print(io, await connection.client.unarchiveBatch(f.batchId)),
  );

  on(cli.command('designs').description('list designs').command('list').description('every design, as a JSON array'), async (_f, { connection }) =>
    print(io, await collect(connection.client.iterateDesigns())),
  );

  on(
    cli
      .command('issue')
      .description("issue a certificate per CSV row (columns name, email; every other column fills the design's variable of that name)")
      .requiredOption('--batch <id>', 'batch id')
      .requiredOption('--csv <file>', 'CSV file with a header row')
      .option('--send', 'email each certificate')
      .option('--no-skip-existing', 'issue rows whose email is already in the batch again')
      .option('--errors <file>', 'write the rows not issued, with why, to this CSV file (fix them there and pass it as --csv)')
      .option('--out <file>', 'write every row with its outcome, certificate ID, URL and share token to this CSV file, as the run goes')
      .option('--no-bom', 'write --errors and --out without the UTF-8 byte-order mark that Excel needs to read them as UTF-8')
      .option('--skip-invalid', 'issue the valid rows and report the invalid ones, instead of sending nothing')
      .addOption(new Option('--allow-unknown-columns', "send a column that is not one of the design's variables as it is, instead of refusing every row that fills it"))
      // Before --allow-unknown-columns, --strict turned the warning into an error; that is the default now, and scripts that pass it still run.
      .addOption(new Option('--strict').hideHelp().conflicts('allowUnknownColumns'))
      .addOption(new Option('--dry-run', 'read only: print what each row would do and the quota it would use; send nothing').conflicts(['out', 'errors'])),
    issue,
  );

  const certificates = cli.command('certificates').description("a batch's certificates: list, count, find, send, delete");
  const batchOption = () => new Option('--batch <batchId>', 'batch id (see certsvc batches list)').makeOptionMandatory();
  const emailStatusOption = () => new Option('--email-status <status>', 'only certificates whose email is in this state (e.g. sent)');
  const idArgument = 'certificate ID (CERT-…), or the recipient id (rec_…) with --batch';
  on(
    certificates
      .command('list')
      .description('every certificate of a batch (all pages): a table, or --json, or --csv <file> with the API\'s field names')
      .addOption(batchOption())
      .addOption(emailStatusOption())
      .addOption(new Option('--csv <file>', 'write them to this CSV file (columns: the API\'s field names, then data.<variable>)').conflicts('json'))
      .option('--json', 'print them as a JSON array')
      .option('--no-bom', 'write the CSV without the UTF-8 byte-order mark that Excel needs to read it as UTF-8'),
    listCertificates,
  );
  on(certificates.command('count').description('how many certificates a batch has (reads every page)').addOption(batchOption()).addOption(emailStatusOption()), countCertificates);
  on(
    certificates
      .command('find')
      .description("the certificate issued to an email in a batch (any case); exit 1 when there is none")
      .addOption(batchOption())
      .requiredOption('--email <email>', 'the recipient\'s email'),
    findCertificate,
  );
  on(
    certificates
      .command('send')
      .description('queue the certificate email (again) for one certificate')
      .argument('<id>', idArgument)
      .option('--batch <batchId>', 'the batch, when <id> is a recipient id'),
    sendCertificate,
  );
  on(
    certificates
      .command('delete')
      .description('delete one certificate (asks first; --yes without a terminal)')
      .argument('<id>', idArgument)
      .option('--batch <batchId>', 'the batch, when <id> is a recipient id')
      .option('--yes', 'do not ask (needed without a terminal)'),
    deleteCertificate,
  );

  on(
    cli.command('get').description('look up a certificate by its certificate ID').argument('<certificateId>', 'e.g. CERT-2026-000123-0001'),
    async (f: { certificateId: string }, { connection }) => print(io, await connection.client.getCertificate(f.certificateId)),
  );

  // A workspace holds at most 20 subscriptions; list and delete find and remove the ones no
  // trigger owns any more; create registers your own receiver (or an n8n Webhook node's URL).
  const subscriptions = cli.command('subscriptions').description('list, create, test or delete webhook subscriptions');
  on(
    subscriptions
      .command('create')
      .description('subscribe a receiver URL; prints the subscription with its signing secret, which is shown only this once')
      .requiredOption('--url <url>', 'https:// URL of the receiver (http:// only for localhost)')
      .requiredOption('--events <events>', `comma-separated: ${EVENT_TYPES.join(', ')}`, (v: string) => v.split(',').map((e) => e.trim()).filter(Boolean)),
    async (f: { url: string; events: EventType[] }, { connection }) => {
      print(io, await connection.client.createSubscription({ url: f.url, events: f.events }));
      io.stderr.write('Store the secret now: the service shows it only once (rotate it if it is lost).\n');
      return 0;
    },
  );
  on(
    subscriptions
      .command('test')
      .description('ask the service to send a sample delivery to the subscription\'s URL; says how to see whether it arrived (against the sandbox: the first attempt\'s outcome)')
      .argument('<subscriptionId>', 'e.g. whs_…'),
    runSubscriptionTest,
  );
  on(subscriptions.command('list').description('every webhook subscription (id, url, events), as a JSON array'), async (_f, { connection }) =>
    print(io, await collect(connection.client.iterateSubscriptions())),
  );
  on(
    subscriptions
      .command('delete')
      .description('delete a webhook subscription; the trigger that used it stops receiving events')
      .argument('<subscriptionId>', 'e.g. whs_… (see certsvc subscriptions list)')
      .option('--yes', 'do not ask (needed without a terminal)'),
    async (f: { subscriptionId: string; yes?: boolean }, context) => {
      // Asks first, before connecting: a deleted subscription's secret is gone, and its trigger stops receiving events.
      if (!(await confirm(`Delete webhook subscription ${f.subscriptionId}?`, f.yes, io))) {
        io.stderr.write('Nothing deleted.\n');
        return 1;
      }
      return print(io, await context.connection.client.deleteSubscription(f.subscriptionId));
    },
  );

  on(cli.command('doctor').description('check, with read-only calls, that every answer of the service has a shape the connectors read'), runDoctor);

  // The MCP server, when its package is installed (mcp.ts).
  on(
    cli
      .command('mcp')
      .description('start the MCP server (stdio; --http, --tools, --read-only: see certsvc mcp --help); needs @certificate-service/mcp')
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .argument('[options...]', 'passed to certsvc-mcp'),
    runMcp,
  );

  on(
    cli
      .command('verify')
      .description('check a webhook delivery read from stdin, as a receiver would')
      .option('--secret <secret>', 'signing secret (repeat while rotating; default $CERTSVC_WEBHOOK_SECRET)', (v: string, prev: string[] = []) => [...prev, v])
      .option('--signature <header>', 'the X-Service-Signature header, t=…,v1=…')
      .option('--timestamp <seconds>', 'the X-Service-Timestamp header')
      .option('--tolerance <seconds>', 'replay window (default 300)'),
    runVerify,
  );

  on(
    cli
      .command('events')
      .description('recover webhook events a receiver missed')
      .command('recover')
      .description('forward the issued, sent and failed events of a window (--since, --until) to a receiver, signed as the service signs them, paced (viewed events cannot be recovered)')
      .requiredOption('--since <time>', 'a duration back from now (72h, 3d, 90m), a date (2026-11-27) or a date-time with its zone (2026-11-27T08:00Z)')
      .option('--until <time>', 'the end of the window, in the same forms (default now)')
      .option('--forward-to <url>', "the receiver's URL (an SDK app, or n8n's Webhook node before Delivery: Verify)")
      .option('--secret <wh_sec_…>', "the receiver's signing secret (default $CERTSVC_WEBHOOK_SECRET)")
      .option('--batch <id...>', 'only these batches (default: every batch, archived too)')
      .addOption(new Option('--events <list>', 'comma-separated: issued, sent, failed (default all three)'))
      .option('--dry-run', 'list what would be forwarded, send nothing')
      .option('--receiver-memory <keys>', `how many delivery keys the receiver remembers (n8n's Delivery: Verify: ${count(N8N_VERIFY_MEMORY)} per process); more events than that are refused`)
      .option('--yes', `forward more events than the receiver is known to remember (default limit ${count(DEFAULT_MEMORY_STORE_SIZE)}): its store keeps every key`)
      .option('--concurrency <n>', `deliveries in flight at most (default ${DEFAULT_CONCURRENCY})`)
      .option('--max-wait <duration>', `the longest the receiver's 503/429 pauses may add up to (default ${DEFAULT_MAX_WAIT_MS / 60_000}m)`),
    runRecover,
  );

  return cli;
}
