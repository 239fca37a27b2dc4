#!/usr/bin/env node
// `certsvc-mcp` (and `certsvc mcp`): the MCP server. stdio by default, `--http` for streamable
// HTTP on 127.0.0.1. The key and base URL come from CERTSVC_API_KEY and CERTSVC_BASE_URL only.
// stdout carries protocol messages and nothing else; logs go to stderr, redacted.
import fs from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { clientFromEnv, createUndiciTransport, serviceFingerprint, validationError, type CertificateServiceClient, type HeaderBag } from '@certificate-service/sdk';
import { ConfirmationTokens, confirmationsDir } from './confirm';
import { DEFAULT_PORT, serveHttp } from './http';
import { stderrLogger } from './log';
import { Redactor } from './redact';
import { serveBothStdio } from './stdio';
import { createServer, DEFAULT_CONFIRM_ABOVE, UsageError, type ServerOptions } from './server';
import { TOOLS } from './tools';

const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '../package.json'), 'utf8')) as { version: string };

export const USAGE = `Usage: certsvc-mcp [options]

An MCP server for the Certificate Service. Reads CERTSVC_API_KEY and CERTSVC_BASE_URL from
its environment (never from arguments).

Options:
  --tools <a,b>          only these tools (default: all ${TOOLS.length}): ${TOOLS.map((t) => t.name).join(', ')}
  --read-only            only the read-only tools (overrides --tools)
  --confirm-above <n>    ask before issuing more than n certificates (default ${DEFAULT_CONFIRM_ABOVE})
  --http                 serve streamable HTTP instead of stdio; every request needs the bearer
                         token (CERTSVC_MCP_TOKEN, or one printed once on stderr at start)
  --host <address>       with --http (default 127.0.0.1); not loopback only with --allow-remote
  --port <n>             with --http (default ${DEFAULT_PORT}; 0 picks a free port)
  --allow-remote         allow a --host that is not loopback
  --version, --help
`;

export interface Flags {
  tools?: string[];
  readOnly: boolean;
  confirmAbove: number;
  http: boolean;
  host?: string;
  port?: number;
  allowRemote: boolean;
  help: boolean;
  version: boolean;
}

export function parseFlags(argv: string[]): Flags {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        tools: { type: 'string' },
        'read-only': { type: 'boolean', default: false },
        'confirm-above': { type: 'string' },
        http: { type: 'boolean', default: false },
        host: { type: 'string' },
        port: { type: 'string' },
        'allow-remote': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false, short: 'h' },
        version: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const whole = (flag: string, value: string | undefined, min: number): number | undefined => {
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${flag} takes a whole number of at least ${min} (got "${value}")`);
    return Number(value);
  };
  if (!values.http && (values.host !== undefined || values.port !== undefined || values['allow-remote'])) throw new UsageError('--host, --port and --allow-remote go with --http');
  return {
    tools: values.tools?.split(',').map((t) => t.trim()).filter(Boolean),
    readOnly: values['read-only'],
    confirmAbove: whole('confirm-above', values['confirm-above'], 0) ?? DEFAULT_CONFIRM_ABOVE,
    http: values.http,
    host: values.host,
    port: whole('port', values.port, 0),
    allowRemote: values['allow-remote'],
    help: values.help,
    version: values.version,
  };
}

/** The API client from the environment (the SDK's `clientFromEnv`); a missing variable is an error naming it, at the first tool call. */
export function mcpClient(env: NodeJS.ProcessEnv, observe?: (status: number, headers: HeaderBag, body: unknown) => void): CertificateServiceClient {
  const undici = createUndiciTransport();
  return clientFromEnv(env, {
    missing: (variable) =>
      variable === 'CERTSVC_API_KEY'
        ? validationError(variable, "is not set in this MCP server's environment: add it to the server's \"env\" in the client's configuration")
        : validationError(variable, "is not set in this MCP server's environment (e.g. https://<your service host>/api/v1)"),
    transport: observe
      ? async (request) => {
          const response = await undici(request);
          observe(response.status, response.headers, response.body);
          return response;
        }
      : undici,
  });
}

export interface Io {
  stdin: Readable;
  stdout: Writable;
  stderr: NodeJS.WritableStream;
}

/** Starts the server; resolves when it has stopped (stdin closed, or a signal). Returns the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = process): Promise<number> {
  const redactor = new Redactor([env.CERTSVC_API_KEY, env.CERTSVC_MCP_TOKEN]);
  const log = stderrLogger(redactor, io.stderr);
  let flags: Flags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`certsvc-mcp: ${error.message}\n(run certsvc-mcp --help for usage)\n`);
    return 2;
  }
  // Help and version go to stderr too: whatever starts this may be reading stdout as protocol.
  if (flags.help) return void io.stderr.write(USAGE), 0;
  if (flags.version) return void io.stderr.write(`${version}\n`), 0;

  let client: CertificateServiceClient | undefined;
  const options: ServerOptions = {
    client: () => (client ??= mcpClient(env)),
    observedClient: (observe) => mcpClient(env, observe),
    tools: flags.tools,
    readOnly: flags.readOnly,
    confirmAbove: flags.confirmAbove,
    secrets: [env.CERTSVC_API_KEY, env.CERTSVC_MCP_TOKEN],
    service: serviceFingerprint(env.CERTSVC_BASE_URL, env.CERTSVC_API_KEY),
    tokens: new ConfirmationTokens(confirmationsDir(env)),
    log,
    version,
  };
  try {
    const probe = createServer(options); // checks --tools before anything listens
    if (!flags.http) return await runStdio(probe, options, io, log);
    const running = await serveHttp({ host: flags.host, port: flags.port, allowRemote: flags.allowRemote, token: env.CERTSVC_MCP_TOKEN, server: options, log, announce: (t) => void io.stderr.write(t) });
    redactor.add(running.token);
    // A daemon: only a signal stops it. Its stdin is not a client (a service manager, a
    // container without -i, or `</dev/null &` close it at once).
    await untilStopped(io, false);
    log.info('stopping: finishing the calls in flight');
    await running.close();
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`certsvc-mcp: ${error.message}\n`);
    return 2;
  }
}

async function runStdio(mcp: ReturnType<typeof createServer>, options: ServerOptions, io: Io, log: ReturnType<typeof stderrLogger>): Promise<number> {
  const running = await serveBothStdio(mcp, options, io.stdin, io.stdout);
  log.info(`ready on stdio with ${mcp.tools.length} tools (2025 and 2026-07-28 clients): ${mcp.tools.join(', ')}`);
  await untilStopped(io);
  // The client went away (or a signal came): calls in flight finish the request they are in,
  // send nothing more, and log what they did; then the process ends.
  await running.close();
  await running.idle();
  return 0;
}

/** Resolves on SIGINT/SIGTERM, and over stdio also when stdin ends (the client closed the pipe or exited). */
function untilStopped(io: Io, stdinIsClient = true): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    if (!stdinIsClient) return;
    io.stdin.once('end', resolve);
    io.stdin.once('close', resolve);
    io.stdin.resume();
  });
}

if (require.main === module) {
  // Nothing may reach stdout but protocol: a dependency's console.log goes to stderr instead.
  for (const k of ['log', 'info', 'debug'] as const) console[k] = (...args: unknown[]) => console.error(...args);
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`certsvc-mcp: ${new Redactor([process.env.CERTSVC_API_KEY, process.env.CERTSVC_MCP_TOKEN]).text(error instanceof Error ? error.message : String(error))}\n`);
      process.exit(1);
    },
  );
}
