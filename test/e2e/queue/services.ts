/**
 * The services n8n queue mode stands on, each a real Debian program in a temp folder on its own
 * loopback port: Redis (Bull's queue), Postgres (n8n's database) and nginx (the load balancer
 * in front of the webhook processes). Every one runs in its own process group; stop() ends it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { freePort } from '../../support/net';
import { until } from '../../support/until';

export interface Service {
  name: string;
  port: number;
  logs(): string;
  stop(): Promise<void>;
  /** Stops it (its stop signal) and starts it again with the same arguments: same port, same data. */
  restart(): Promise<void>;
}

/** Starts `command` detached (own process group) and resolves once `isReady(log)` holds. */
async function daemon(
  name: string,
  command: string,
  args: string[],
  port: number,
  isReady: (log: string) => boolean | Promise<boolean>,
  opts: { cwd?: string; stopSignal?: NodeJS.Signals; timeoutMs?: number } = {},
): Promise<Service> {
  let log = '';
  let child!: ChildProcess;
  let exited: string | undefined;
  let exitPromise: Promise<void> = Promise.resolve();
  const append = (chunk: Buffer) => {
    log += chunk.toString();
    if (log.length > 500_000) log = log.slice(-250_000);
  };
  const kill = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const killOnExit = () => kill('SIGKILL');
  const launch = () => {
    exited = undefined;
    child = spawn(command, args, { cwd: opts.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    exitPromise = new Promise<void>((resolve) =>
      child.on('exit', (code, signal) => {
        exited = `${name} exited (code ${code}, signal ${signal})`;
        resolve();
      }),
    );
    child.on('error', (error) => {
      exited = `${name} could not start: ${error.message}`;
    });
    process.on('exit', killOnExit);
  };
  const halt = async () => {
    process.off('exit', killOnExit);
    if (exited) return;
    kill(opts.stopSignal ?? 'SIGTERM');
    const timer = setTimeout(() => kill('SIGKILL'), 10_000);
    await exitPromise;
    clearTimeout(timer);
  };
  const ready = async () => {
    const from = log.length; // a restart must say "ready" again
    await until(`${name} to be ready`, async () => {
      if (exited) throw new Error(exited);
      return isReady(log.slice(from));
    }, opts.timeoutMs ?? 60_000, 100).catch(async () => {
      await halt();
      throw new Error(`${name} did not start: ${exited ?? 'timed out'}\n--- ${name} log ---\n${log.slice(-3000)}`);
    });
  };
  const service: Service = {
    name,
    port,
    logs: () => log,
    stop: halt,
    async restart() {
      await halt();
      launch();
      await ready();
    },
  };
  launch();
  await ready();
  return service;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Where a Debian program lives, or a clear error naming the package that provides it. */
export function findProgram(candidates: string[], aptPackage: string): string {
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error(`${candidates[0]} is missing: install it with \`apt-get install -y ${aptPackage}\``);
  return found;
}

/** Debian's Postgres server binaries: /usr/lib/postgresql/<newest>/bin. */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions.length) throw new Error('Postgres server binaries are missing: install them with `apt-get install -y postgresql`');
  return path.join(root, versions[0], 'bin');
}

/** Redis on loopback, nothing written to disk. */
export async function startRedis(dir: string): Promise<Service> {
  const bin = findProgram(['/usr/bin/redis-server'], 'redis-server');
  const port = await freePort();
  return daemon('redis', bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], port, (log) =>
    log.includes('Ready to accept connections'),
  );
}

/**
 * Postgres from Debian's binaries, in a fresh data folder. initdb and postgres refuse to run
 * as root, so as root (CI) they run as Debian's `postgres` user (created by the postgresql
 * package) through `runuser`. Durability is off (fsync, synchronous_commit): a test database.
 * n8n connects to the default `postgres` database as superuser `n8n` with trust auth (loopback).
 */
export async function startPostgres(dir: string): Promise<Service & { user: string; database: string }> {
  const bin = postgresBinDir();
  const data = path.join(dir, 'pgdata');
  fs.mkdirSync(data, { mode: 0o700 });
  const asRoot = process.getuid?.() === 0;
  const wrap = (command: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]);
  if (asRoot) {
    const who = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    if (who.status !== 0) throw new Error('running as root needs the `postgres` user: install it with `apt-get install -y postgresql`');
    fs.chownSync(dir, Number(who.stdout.trim()), -1);
    fs.chownSync(data, Number(who.stdout.trim()), -1);
  }
  const [initCmd, initArgs] = wrap(path.join(bin, 'initdb'), ['-D', data, '-U', 'n8n', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const init = spawnSync(initCmd, initArgs, { cwd: dir, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout}`);
  const port = await freePort();
  const [cmd, args] = wrap(path.join(bin, 'postgres'), [
    '-D', data, '-p', String(port), '-k', dir,
    '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
  ]);
  // SIGINT is Postgres's "fast shutdown".
  const service = await daemon('postgres', cmd, args, port, (log) => log.includes('ready to accept connections'), { cwd: dir, stopSignal: 'SIGINT' });
  return { ...service, user: 'n8n', database: 'postgres' };
}

export interface NginxOptions {
  /** Ports of the `n8n webhook` processes. */
  webhookPorts: number[];
  /** Port of the n8n main process (UI, API, /webhook-test/). */
  mainPort: number;
  /** `hash`: consistent hashing on X-Service-Delivery (what we recommend); `round-robin`: nginx's default. */
  routing: 'hash' | 'round-robin';
  port?: number;
}

/** The upstream block for the webhook processes, as docs/running-at-scale.md shows it. */
export function webhookUpstream(ports: number[], routing: NginxOptions['routing']): string {
  return [
    'upstream n8n_webhooks {',
    ...(routing === 'hash' ? ['  # every copy of a delivery reaches the same webhook process (and its memory of delivery ids)', '  hash $http_x_service_delivery consistent;'] : []),
    ...ports.map((p) => `  server 127.0.0.1:${p};`),
    '  keepalive 32;',
    '}',
  ].join('\n');
}

/**
 * nginx in front of n8n as users deploy queue mode: /webhook/ goes to the webhook processes,
 * everything else (UI, REST, /webhook-test/) to main. `X-Served-By` is nginx's `$upstream_addr`:
 * every upstream it tried for the request, the one that answered last (after a webhook process
 * dies, nginx tries it again once its fail_timeout is over, then the next). `answeredBy` reads it.
 */
export async function startNginx(dir: string, opts: NginxOptions): Promise<Service & { url: string; config: string }> {
  const bin = findProgram(['/usr/sbin/nginx'], 'nginx-light');
  const port = opts.port ?? (await freePort());
  const prefix = fs.mkdtempSync(path.join(dir, `nginx-${opts.routing}-`));
  const proxy = [
    'proxy_http_version 1.1;',
    'proxy_set_header Connection "";',
    'proxy_set_header Host $http_host;',
    'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    'proxy_set_header X-Forwarded-Proto $scheme;',
    'proxy_read_timeout 300s;',
    'add_header X-Served-By $upstream_addr always;',
  ].join('\n      ');
  const config = `
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${prefix}/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  client_max_body_size 16m;
  client_body_buffer_size 1m;

  ${webhookUpstream(opts.webhookPorts, opts.routing).replace(/\n/g, '\n  ')}
  upstream n8n_main {
    server 127.0.0.1:${opts.mainPort};
    keepalive 8;
  }

  server {
    listen 127.0.0.1:${port};
    location /webhook/ {
      proxy_pass http://n8n_webhooks;
      ${proxy}
    }
    location / {
      proxy_pass http://n8n_main;
      ${proxy}
    }
  }
}
`;
  const file = path.join(prefix, 'nginx.conf');
  fs.writeFileSync(file, config);
  const test = spawnSync(bin, ['-t', '-p', prefix, '-c', file], { encoding: 'utf8' });
  if (test.status !== 0) throw new Error(`nginx rejected its config: ${test.stderr}`);
  // SIGQUIT is nginx's graceful shutdown.
  const service = await daemon(`nginx (${opts.routing})`, bin, ['-p', prefix, '-c', file], port, () => accepts(port), { stopSignal: 'SIGQUIT' });
  return { ...service, url: `http://127.0.0.1:${port}`, config };
}
