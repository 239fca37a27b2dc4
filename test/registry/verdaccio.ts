// A real npm registry on this machine: Verdaccio (a devDependency), on 127.0.0.1 and a free port,
// its storage in a temp folder. Our package names are served from that storage only: a name we
// did not publish there is a 404, never a package of the same name from elsewhere. Every other
// name (undici, commander, the MCP SDK…) it fetches from the registry npm uses on this machine,
// as a user's npm gets both from one registry.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/net';
import { until } from '../support/until';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'node_modules/verdaccio/bin/verdaccio');

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** The publisher's token (a user registered on this registry). */
  token: string;
  /** An npmrc that sends the token to this registry and nothing else. */
  publisherNpmrc: string;
  storage: string;
  logs(): string;
  stop(): Promise<void>;
}

/** The registry npm uses here (`npm config get registry`): Verdaccio's one uplink. */
function upstreamRegistry(): string {
  return execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', env: { ...process.env, npm_config_registry: undefined } }).trim();
}

export async function startRegistry(ours: string[]): Promise<LocalRegistry> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-registry-'));
  const storage = path.join(dir, 'storage');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const quote = (s: string) => JSON.stringify(s);
  // YAML accepts JSON strings; one package rule per name of ours (published here, never proxied).
  fs.writeFileSync(
    path.join(dir, 'config.yaml'),
    [
      `storage: ${quote(storage)}`,
      'auth:',
      '  htpasswd:',
      `    file: ${quote(path.join(dir, 'htpasswd'))}`,
      '    max_users: 1',
      'uplinks:',
      '  upstream:',
      `    url: ${quote(upstreamRegistry())}`,
      '    timeout: 60s',
      'packages:',
      ...ours.flatMap((name) => [`  ${quote(name)}:`, '    access: $all', '    publish: $authenticated', '    unpublish: $authenticated']),
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    proxy: upstream',
      'web:',
      '  enable: false',
      'log: { type: stdout, format: json, level: warn }',
      '',
    ].join('\n'),
  );
  let log = '';
  const child: ChildProcess = spawn(process.execPath, [BIN, '--config', path.join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (log += c));
  child.stderr!.on('data', (c: Buffer) => (log += c));
  let exited: string | undefined;
  const gone = new Promise<void>((resolve) => child.on('exit', (code, signal) => ((exited = `verdaccio exited (${code ?? signal})`), resolve())));
  const stop = async () => {
    if (!exited) child.kill('SIGTERM');
    await gone;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until('verdaccio to answer /-/ping', async () => {
      if (exited) throw new Error(`${exited}:\n${log}`);
      return (await fetch(`${url}-/ping`).catch(() => undefined))?.ok;
    }, 60_000, 100);
    // `npm adduser`, as the API does it: the first user registers and gets a token.
    const res = await fetch(`${url}-/user/org.couchdb.user:publisher`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'publisher', password: `pw-${process.pid}-${Date.now()}` }),
    });
    const body = (await res.json()) as { token?: string };
    if (res.status !== 201 || !body.token) throw new Error(`verdaccio refused the publisher (${res.status}): ${JSON.stringify(body)}`);
    const publisherNpmrc = path.join(dir, 'publisher.npmrc');
    fs.writeFileSync(publisherNpmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${body.token}\n`);
    return { url, token: body.token, publisherNpmrc, storage, logs: () => log, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
