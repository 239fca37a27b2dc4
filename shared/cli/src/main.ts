#!/usr/bin/env node
// `certsvc`: the Certificate Service from the command line. Exit codes: 0 done, 1 the service
// refused something (or some rows failed), 2 a usage error (nothing was sent).
import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { CertificateServiceError, EVENT_TYPES, hostHint, type EventType, type HostWords, UsageError } from '@certificate-service/sdk';
import { registerCertificates } from './certificates';
import { confirm } from './confirm';
import { connect, type ConnectionFlags } from './connect';
import { runDoctor } from './doctor';
import { runDryRun } from './dry-run';
import { runIssue, type IssueFlags } from './issue';
import { runVerify, type VerifyFlags } from './verify';
import { type Io, processIo } from './io';
import { userPath } from './paths';

export type { Io } from './io';

const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '../package.json'), 'utf8')) as { version: string };

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The command line; commands that end with a verdict (issue, verify) set `result.exitCode`. */
export function program(result: { exitCode: number }, io: Io = processIo): Command {
  const print = (value: unknown): void => void io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  const cli = new Command('certsvc')
    .description('Issue and look up certificates of the Certificate Service.')
    .version(version)
    .addOption(new Option('--api-key <key>', 'API key (env: CERTSVC_API_KEY)'))
    .addOption(new Option('--base-url <url>', 'service URL, e.g. https://<host>/api/v1 (env: CERTSVC_BASE_URL)'))
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .showHelpAfterError('(run certsvc --help for usage)');
  // The key and URL: a flag, else the environment (connect.ts), read from io.env, not process.env.
  const connection = (command: Command) => connect(command.optsWithGlobals<ConnectionFlags>(), io.env);
  const client = (command: Command) => connection(command).client;
  // File names as typed, resolved from the user's folder once, here (paths.ts).
  const here = (file: string) => userPath(file, io.cwd, io.env);

  cli.command('auth').description('check the API key; prints the workspace').action(async (_o, command: Command) => print(await client(command).auth()));

  const batches = cli.command('batches').description('list, create, archive or unarchive batches');
  batches
    .command('list')
    .description('every batch, as a JSON array')
    .addOption(new Option('--status <status>', 'which batches').choices(['active', 'archived', 'all']).default('active'))
    .action(async (o: { status: 'active' | 'archived' | 'all' }, command: Command) => print(await collect(client(command).iterateBatches({ status: o.status }))));
  batches
    .command('create')
    .description('create a batch; prints it')
    .requiredOption('--title <title>', 'batch title')
    .requiredOption('--design <designId>', 'design id (see certsvc designs list)')
    .action(async (o: { title: string; design: string }, command: Command) => print(await client(command).createBatch({ title: o.title, designId: o.design })));
  // An archived batch refuses new certificates (BATCH_ARCHIVED: "unarchive it before issuing").
  batches
    .command('archive')
    .description('archive a batch (it then refuses new certificates); prints it')
    .argument('<batchId>', 'e.g. batch_… (see certsvc batches list)')
    .action(async (batchId: string, _o, command: Command) => print(await client(command).archiveBatch(batchId)));
  batches
    .command('unarchive')
    .description('make an archived batch active again, so it takes new certificates; prints it')
    .argument('<batchId>', 'e.g. batch_… (see certsvc batches list --status archived)')
    .action(async (batchId: string, _o, command: Command) => print(await client(command).unarchiveBatch(batchId)));

  cli
    .command('designs')
    .description('list designs')
    .command('list')
    .description('every design, as a JSON array')
    .action(async (_o, command: Command) => print(await collect(client(command).iterateDesigns())));

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
    .addOption(new Option('--dry-run', 'read only: print what each row would do and the quota it would use; send nothing').conflicts(['out', 'errors']))
    .action(async (o: IssueFlags & { dryRun?: boolean }, command: Command) => {
      const flags = { ...o, csv: here(o.csv), errors: o.errors === undefined ? undefined : here(o.errors), out: o.out === undefined ? undefined : here(o.out) };
      result.exitCode = o.dryRun ? await runDryRun(flags, connection(command), io.stdout, io.stderr) : await runIssue(flags, connection(command), io);
    });

  registerCertificates(cli, client, io, result);

  cli
    .command('get')
    .description('look up a certificate by its certificate ID')
    .argument('<certificateId>', 'e.g. CERT-2026-000123-0001')
    .action(async (certificateId: string, _o, command: Command) => print(await client(command).getCertificate(certificateId)));

  // A workspace holds at most 20 subscriptions; list and delete find and remove the ones no
  // trigger owns any more; create registers your own receiver (or an n8n Webhook node's URL).
  const subscriptions = cli.command('subscriptions').description('list, create, test or delete webhook subscriptions');
  subscriptions
    .command('create')
    .description('subscribe a receiver URL; prints the subscription with its signing secret, which is shown only this once')
    .requiredOption('--url <url>', 'https:// URL of the receiver (http:// only for localhost)')
    .requiredOption('--events <events>', `comma-separated: ${EVENT_TYPES.join(', ')}`, (v: string) => v.split(',').map((e) => e.trim()).filter(Boolean))
    .action(async (o: { url: string; events: EventType[] }, command: Command) => {
      print(await client(command).createSubscription({ url: o.url, events: o.events }));
      io.stderr.write('Store the secret now: the service shows it only once (rotate it if it is lost).\n');
    });
  subscriptions
    .command('test')
    .description('ask the service to send a sample delivery to the subscription\'s URL; says how to see whether it arrived (against the sandbox: the first attempt\'s outcome)')
    .argument('<subscriptionId>', 'e.g. whs_…')
    .action(async (subscriptionId: string, _o, command: Command) => {
      const { runSubscriptionTest } = await import('./subscriptions-test');
      result.exitCode = await runSubscriptionTest(subscriptionId, client(command), io.stdout, io.stderr);
    });
  subscriptions
    .command('list')
    .description('every webhook subscription (id, url, events), as a JSON array')
    .action(async (_o, command: Command) => print(await collect(client(command).iterateSubscriptions())));
  subscriptions
    .command('delete')
    .description('delete a webhook subscription; the trigger that used it stops receiving events')
    .argument('<subscriptionId>', 'e.g. whs_… (see certsvc subscriptions list)')
    .option('--yes', 'do not ask (needed without a terminal)')
    .action(async (subscriptionId: string, o: { yes?: boolean }, command: Command) => {
      // Asks first: a deleted subscription's secret is gone, and its trigger stops receiving events.
      if (!(await confirm(`Delete webhook subscription ${subscriptionId}?`, o.yes, io))) {
        io.stderr.write('Nothing deleted.\n');
        return void (result.exitCode = 1);
      }
      print(await client(command).deleteSubscription(subscriptionId));
    });

  cli
    .command('doctor')
    .description('check, with read-only calls, that every answer of the service has a shape the connectors read')
    .action(async (_o, command: Command) => {
      result.exitCode = await runDoctor((observe) => connect(command.optsWithGlobals<ConnectionFlags>(), io.env, observe), io.stdout);
    });

  // The MCP server lives in its own package (@certificate-service/mcp, with the MCP SDK and
  // its dependencies), so installing the CLI stays light; `certsvc mcp` runs it when installed.
  cli
    .command('mcp')
    .description('start the MCP server (stdio; --http, --tools, --read-only: see certsvc mcp --help); needs @certificate-service/mcp')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[options...]', 'passed to certsvc-mcp')
    .action(async (options: string[], _o, command: Command) => {
      const source = (name: string) => command.parent!.getOptionValueSource(name);
      if (source('apiKey') === 'cli' || source('baseUrl') === 'cli') throw new UsageError('certsvc mcp takes the key and URL from CERTSVC_API_KEY and CERTSVC_BASE_URL only (a flag would show the key in process lists and client configs).');
      let mcp: { main(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> };
      try {
        mcp = require('@certificate-service/mcp') as typeof mcp;
      } catch {
        throw new UsageError('certsvc mcp needs @certificate-service/mcp: npm install -g @certificate-service/mcp (or run npx -p @certificate-service/mcp certsvc-mcp directly).');
      }
      result.exitCode = await mcp.main(options, io.env, io);
    });

  cli
    .command('verify')
    .description('check a webhook delivery read from stdin, as a receiver would')
    .option('--secret <secret>', 'signing secret (repeat while rotating; default $CERTSVC_WEBHOOK_SECRET)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--signature <header>', 'the X-Service-Signature header, t=…,v1=…')
    .option('--timestamp <seconds>', 'the X-Service-Timestamp header')
    .option('--tolerance <seconds>', 'replay window (default 300)')
    .action(async (o: VerifyFlags) => {
      result.exitCode = await runVerify(o, io.stdin, io.stdout, io.env);
    });

  // certsvc events recover (events-recover.ts), loaded here so this file keeps one hunk for it.
  (require('./events-recover') as typeof import('./events-recover')).registerEvents(cli, result, io);

  return cli;
}

/** The CLI's words after the core's hint: its environment variables and commands. */
const CLI_WORDS: HostWords = {
  auth: 'Set the key in CERTSVC_API_KEY (or pass --api-key).',
  'issue-unknown': 'Run the same certsvc issue command again: rows already in the batch are skipped.',
  'subscription-limit': 'List them with "certsvc subscriptions list" and remove one with "certsvc subscriptions delete <id>".',
  'unexpected-response': 'Check CERTSVC_BASE_URL (or --base-url).',
  unreachable: 'Check CERTSVC_BASE_URL (or --base-url); the local sandbox answers at http://127.0.0.1:4010/api/v1 once started (`npm start -- --serve` in a clone, or `certsvc-sandbox`).',
};

/** Runs the command line; resolves to the exit code (an unexpected error is said on stderr, exit 1). */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const result = { exitCode: 0 };
  try {
    await program(result, io).parseAsync(argv);
    return result.exitCode;
  } catch (error) {
    // Commander has already printed its message (unknown option, missing argument, --help).
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      io.stderr.write(`certsvc: ${error.message}\n`);
      return 2;
    }
    if (error instanceof CertificateServiceError) {
      const hint = hostHint(error, CLI_WORDS);
      io.stderr.write(`certsvc: ${error.message}\n${hint ? `${hint}\n` : ''}`);
      // Refused before sending (status 0, bad input) is a usage error; anything the service said is not.
      return error.code === 'VALIDATION_ERROR' && error.status === 0 ? 2 : 1;
    }
    io.stderr.write(`certsvc: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (require.main === module) void main(process.argv).then((code) => (process.exitCode = code));
