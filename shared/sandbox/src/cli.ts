#!/usr/bin/env node
// `certsvc-sandbox`: the sandbox on a port, for an app, a real n8n or `zapier-platform invoke`.
// Prints the base URL and the demo key; `--deliver-to <url>` subscribes a local receiver to
// every event and prints its signing secret once.
import { parseArgs } from 'node:util';
import { createClient, EVENT_TYPES } from '@certificate-service/sdk';
import { createSandbox, stopWithParent, type ListShape, type SandboxOptions } from './index';
import { LIST_SHAPES } from './types';

export const USAGE = `Usage: certsvc-sandbox [options]
  --port N                 port to listen on (default 4010; 0 picks a free one)
  --host H                 address to listen on (default 127.0.0.1)
  --allow-host NAME        also answer requests for NAME (e.g. host.docker.internal); repeatable.
                           Any other Host header is refused, against DNS rebinding
  --no-rate-limit          no 120 requests/min limit
  --rate-limit N[/ms]      another limit, e.g. 1000/60000
  --quota N                the demo workspace's certificate quota
  --time-scale X           run delivery retries and the rotation grace X times their real time
  --delivery-concurrency N at most N delivery attempts in flight per subscription (default: no limit)
  --list-shape S           list wrapper to answer in: ${LIST_SHAPES.join(', ')}
  --recipient-order O      newest-first (default), oldest-first or undetectable, for recipient lists
  --timestamp-precision P  createdAt and emailSentAt to the ms (default) or to the s
  --cursor-kind K          recipient list cursors: opaque (default, keyset) or offset
  --cursor-expiry-ms N     recipient list cursors are refused N ms after they were handed out
  --cursor-expiry-writes N ... or after N newer writes to the batch's certificates
  --no-seed                no demo workspace (and no demo key)
  --deliver-to URL         subscribe URL to every event in the demo workspace; prints the secret once`;

export interface CliOptions {
  sandbox: SandboxOptions;
  deliverTo?: string;
}

/** Flags as `--port 4011` or `--port=4011`; an unknown flag or a bad number is an error naming it. */
export function readFlags(argv: string[]): CliOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'allow-host': { type: 'string', multiple: true },
      'no-rate-limit': { type: 'boolean' },
      'rate-limit': { type: 'string' },
      quota: { type: 'string' },
      'time-scale': { type: 'string' },
      'delivery-concurrency': { type: 'string' },
      'list-shape': { type: 'string' },
      'recipient-order': { type: 'string' },
      'timestamp-precision': { type: 'string' },
      'cursor-kind': { type: 'string' },
      'cursor-expiry-ms': { type: 'string' },
      'cursor-expiry-writes': { type: 'string' },
      'no-seed': { type: 'boolean' },
      'deliver-to': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const number = (flag: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) throw new Error(`--${flag} takes a number (got "${value}")`);
    return n;
  };
  const sandbox: SandboxOptions = { port: number('port', values.port) ?? 4010 };
  if (values.host) sandbox.host = values.host;
  if (values['allow-host']) sandbox.allowedHosts = values['allow-host'];
  if (values['no-rate-limit']) sandbox.rateLimit = false;
  if (values['rate-limit']) {
    const [limit, windowMs] = values['rate-limit'].split('/');
    sandbox.rateLimit = { limit: number('rate-limit', limit)!, windowMs: number('rate-limit', windowMs) ?? 60_000 };
  }
  sandbox.quota = number('quota', values.quota);
  sandbox.timeScale = number('time-scale', values['time-scale']);
  sandbox.deliveryConcurrency = number('delivery-concurrency', values['delivery-concurrency']);
  if (values['list-shape']) sandbox.listShape = values['list-shape'] as ListShape;
  if (values['recipient-order']) sandbox.recipientOrder = values['recipient-order'] as SandboxOptions['recipientOrder'];
  if (values['timestamp-precision']) sandbox.timestampPrecision = values['timestamp-precision'] as SandboxOptions['timestampPrecision'];
  if (values['cursor-kind']) sandbox.cursorKind = values['cursor-kind'] as SandboxOptions['cursorKind'];
  const afterMs = number('cursor-expiry-ms', values['cursor-expiry-ms']);
  const afterWrites = number('cursor-expiry-writes', values['cursor-expiry-writes']);
  if (afterMs !== undefined || afterWrites !== undefined) sandbox.cursorExpiry = { ...(afterMs === undefined ? {} : { afterMs }), ...(afterWrites === undefined ? {} : { afterWrites }) };
  if (values['no-seed']) sandbox.seed = false;
  if (values['deliver-to'] !== undefined && values['no-seed']) throw new Error('--deliver-to subscribes in the demo workspace, which --no-seed leaves out');
  return { sandbox, deliverTo: values['deliver-to'] };
}

async function main(): Promise<void> {
  let flags: ReturnType<typeof readFlags>;
  try {
    flags = readFlags(process.argv.slice(2));
  } catch (err) {
    console.error(`certsvc-sandbox: ${(err as Error).message} (try --help)`);
    process.exit(2);
  }
  if (flags === 'help') {
    console.log(USAGE);
    return;
  }
  const sandbox = await createSandbox(flags.sandbox).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    const where = `${flags.sandbox.host ?? '127.0.0.1'}:${flags.sandbox.port}`;
    throw new Error(`${where} is already in use (another sandbox?): choose another port with --port N, or --port 0 for a free one`);
  });
  stopWithParent(sandbox);
  console.log('Certificate Service sandbox listening');
  console.log(`  base URL : ${sandbox.baseUrl}`);
  console.log(`  API key  : ${sandbox.apiKey ?? '(none: started with --no-seed)'}`);
  console.log(`  page     : ${sandbox.url}/  (open it in a browser: batches, certificates, deliveries)`);
  console.log(`  viewer   : ${sandbox.url}/v/<shareToken>`);
  console.log(`  controls : ${sandbox.url}/__sandbox`);
  if (sandbox.options.timeScale !== 1) {
    console.log(`  time     : delivery retries and the rotation grace run at ${sandbox.options.timeScale}× their real time`);
  }
  if (flags.deliverTo !== undefined) {
    // Subscribed through the SDK, as an app would: the same checks, the secret shown once.
    const client = createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey ?? undefined });
    const subscription = await client.createSubscription({ url: flags.deliverTo, events: [...EVENT_TYPES] }).catch((error: Error) => {
      throw new Error(`--deliver-to ${flags.deliverTo}: ${error.message}`);
    });
    console.log(`  delivers : every event to ${flags.deliverTo} (subscription ${subscription.id})`);
    console.log(`  secret   : ${subscription.secret}  (shown once: verify deliveries with it)`);
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(`certsvc-sandbox: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
