/**
 * Runs a real n8n 2.41.1 (installed by install-n8n.sh into a cache folder outside
 * the repo) for end-to-end tests and benchmarks of our community node package.
 *
 *   const cache = ensureN8nInstalled();
 *   const n8n = await startN8n({ customExtensionsDir });
 *   try { ... n8n.createWorkflow(...); n8n.runWorkflow(id) ... } finally { await n8n.stop(); }
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createClient, type CertificateServiceClient } from '@certificate-service/sdk';
import { createSandbox, type Sandbox, type SandboxOptions } from '@certificate-service/sandbox';
import { hasEnded } from '../../support/deliver';
import { freePort } from '../../support/net';
import { until } from '../../support/until';
import { copyPackageToExtensionsDir, ensurePackageBuilt, PACKAGE_DIR } from './package-setup';

export const N8N_VERSION = '2.41.1';
const INSTALL_SCRIPT = path.join(__dirname, 'install-n8n.sh');

/** The install's folder, named after n8n's version and its Node's (the repo's `node` devDependency), as install-n8n.sh names it. */
export function n8nCacheDir(): string {
  const root =
    process.env.CERTSVC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'certificate-service-connectors');
  const node = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')).devDependencies.node;
  return path.join(root, `n8n-${N8N_VERSION}-node-${node}`);
}

/**
 * Installs n8n into the cache once (several minutes the first time); returns the cache folder.
 * `verify: true` always runs the script (about 1 s when installed), which also checks the
 * native modules queue mode needs (isolated-vm) and builds them in place when missing.
 */
export function ensureN8nInstalled(opts: { quiet?: boolean; verify?: boolean } = {}): string {
  const dir = n8nCacheDir();
  if (!opts.verify && fs.existsSync(path.join(dir, '.installed-ok'))) return dir; // fast path, no subprocess
  const res = spawnSync('bash', [INSTALL_SCRIPT], {
    // stdout carries only the path; the install log goes to stderr (shown unless quiet).
    stdio: ['ignore', 'pipe', opts.quiet ? 'pipe' : 'inherit'],
    encoding: 'utf8',
    timeout: 30 * 60_000,
  });
  if (res.status !== 0) {
    const detail = opts.quiet ? tail(String(res.stderr ?? ''), 40) : '(see output above)';
    throw new Error(`install-n8n.sh failed (status ${res.status}, ${res.error?.message ?? ''}):\n${detail}`);
  }
  return dir;
}

export interface RunResult {
  executionId: string;
  status: string;
  lastNode: string | undefined;
  /** JSON of the items the last executed node emitted on its first output. */
  items: Record<string, unknown>[];
  /** JSON of the items a node emitted (last run of that node, given output). */
  outputOf(nodeName: string, outputIndex?: number): Record<string, unknown>[];
  /** Error message of the execution, if it failed. */
  error: string | undefined;
  /** Raw execution from the public API (with data). */
  execution: any;
}

export interface N8nInstance {
  baseUrl: string;
  port: number;
  apiKey: string;
  userFolder: string;
  /** Public API call: /api/v1<path>, header X-N8N-API-KEY. Throws on non-2xx. */
  api<T = any>(method: string, apiPath: string, body?: unknown): Promise<T>;
  /** Internal REST call (what the editor uses): /rest<path>, owner session cookie. Throws on non-2xx. */
  rest<T = any>(method: string, restPath: string, body?: unknown): Promise<T>;
  createCredential(type: string, name: string, data: Record<string, unknown>): Promise<{ id: string }>;
  createWorkflow(json: WorkflowJson): Promise<{ id: string; [k: string]: unknown }>;
  /**
   * Publishes (n8n 1.x: "activates") the workflow's current version and waits until its
   * triggers are live (production webhooks registered); throws with the trigger errors if not.
   */
  publish(id: string, timeoutMs?: number): Promise<void>;
  /** Unpublishes (deactivates) and waits until the triggers are removed. */
  unpublish(id: string, timeoutMs?: number): Promise<void>;
  /** fetch() against the production webhook URL <baseUrl>/webhook/<path>. */
  webhook(webhookPath: string, init?: RequestInit): Promise<Response>;
  /** Runs a saved workflow like the editor's "Execute workflow" button and waits for the result. */
  runWorkflow(id: string, opts?: { triggerNode?: string; timeoutMs?: number }): Promise<RunResult>;
  /** Executions of a workflow, newest first, with their data. */
  executions(workflowId: string, opts?: { includeData?: boolean; limit?: number }): Promise<any[]>;
  /** Polls an execution until it is no longer running; returns it with data. */
  waitForExecution(executionId: string, timeoutMs?: number): Promise<any>;
  /** The owner's session cookie, `n8n-auth=<jwt>` (e.g. to open the editor in a browser). */
  sessionCookie(): string;
  /** Captured stdout+stderr of n8n so far. */
  logs(): string;
  stop(): Promise<void>;
  /** The main process itself (pid, logs, exit state). */
  process: N8nProcess;
  /** Restarts main on the same database and user folder (with `env` added), then logs the owner in again. */
  restart(env?: Record<string, string>): Promise<void>;
}

export interface WorkflowJson {
  name: string;
  nodes: Array<Record<string, unknown>>;
  connections: Record<string, unknown>;
  settings?: Record<string, unknown>;
  [k: string]: unknown;
}

const OWNER = { email: 'owner@e2e.test', firstName: 'E2E', lastName: 'Owner' };

/** The n8n CLI commands the harness runs: the main process, and queue mode's worker and webhook processes. */
export type N8nCommand = 'start' | 'worker' | 'webhook';

export interface ProcessOptions {
  command: N8nCommand;
  /** Extra CLI arguments, e.g. `--concurrency=4` for a worker. */
  args?: string[];
  /** Folder n8n scans for custom nodes (N8N_CUSTOM_EXTENSIONS); node types load as CUSTOM.<name>. '' for none. */
  customExtensionsDir: string;
  /** n8n's user folder (N8N_USER_FOLDER; n8n keeps its data in `<it>/.n8n`); a fresh temp folder by default. Deleted by stop(). */
  userFolder?: string;
  /** HTTP port: the UI/API (start), the webhook server (webhook) or the health server (worker). */
  port?: number;
  /** Extra/overriding env vars for the n8n process. */
  env?: Record<string, string>;
  /** Max wait for n8n to become ready (default 120 s). */
  startTimeoutMs?: number;
  /** A command that runs n8n, given the n8n arguments (e.g. `['bash', 'test/e2e/n8n/n8n.sh']`), instead of the cache's Node and n8n directly. */
  launcher?: string[];
}

/** What startN8n takes: the main process's options. */
export type StartOptions = Omit<ProcessOptions, 'command' | 'args'>;

/** One n8n process in its own process group (so stop() also ends its task runners). */
export interface N8nProcess {
  command: N8nCommand;
  port: number;
  baseUrl: string;
  userFolder: string;
  pid(): number | undefined;
  logs(): string;
  /** Why the process exited, or undefined while it runs. */
  exited(): string | undefined;
  /** An Error whose message ends with the tail of this process's log. */
  fail(message: string): Error;
  /** Stops the process tree and deletes the user folder. */
  stop(): Promise<void>;
  /**
   * Stops the process tree and starts it again with the same env (plus `env`, kept for later
   * restarts), port and user folder; waits until ready.
   */
  restart(env?: Record<string, string>): Promise<void>;
}

/**
 * Starts one n8n process and waits until it is ready: `/healthz/readiness` answers 200 on
 * `port` (for a worker, its health server, which the harness turns on).
 */
export async function spawnN8n(opts: ProcessOptions): Promise<N8nProcess> {
  const cache = n8nCacheDir();
  const n8nBin = path.join(cache, 'node_modules', 'n8n', 'bin', 'n8n');
  // Node 24 (n8n 2.x needs >= 22.16), installed into the cache by install-n8n.sh.
  const nodeBin = path.join(cache, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
  if (!fs.existsSync(path.join(cache, '.installed-ok'))) {
    throw new Error(`n8n is not installed in ${cache}; call ensureN8nInstalled() first`);
  }

  const port = opts.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const userFolder = opts.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), `certsvc-n8n-${opts.command === 'start' ? '' : `${opts.command}-`}`));

  // Inherit the basics (HOME, proxies...) but not n8n settings or NODE_OPTIONS of the caller's
  // shell, so every instance is configured the same.
  const inherited: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(N8N_|DB_|EXECUTIONS_|QUEUE_|NODE_OPTIONS$|WEBHOOK_URL$)/.test(k)) inherited[k] = v;
  }
  const env: Record<string, string> = {
    ...inherited,
    PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
    // jest sets NODE_ENV=test, which makes n8n exit silently; run it as in production.
    NODE_ENV: 'production',
    ...n8nEnv({ port, userFolder, customExtensionsDir: opts.customExtensionsDir, runnerPort: await freePort() }),
    // A worker serves no HTTP unless its health server is on; it is how the harness sees it ready.
    ...(opts.command === 'worker'
      ? { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(port), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' }
      : {}),
    ...opts.env,
  };

  let log = '';
  let child!: ChildProcess;
  let exited: string | undefined;
  let exitPromise: Promise<void> = Promise.resolve();
  const echo = process.env.CERTSVC_N8N_LOG === '1'; // set to stream n8n's output while debugging
  const append = (chunk: Buffer) => {
    if (echo) process.stderr.write(chunk);
    log += chunk.toString();
    if (log.length > 2_000_000) log = log.slice(-1_000_000); // keep memory bounded in long benchmarks
  };
  // Safety net: never leave an n8n behind if the test process dies without stop().
  const killOnExit = () => killGroup(child, 'SIGKILL');
  const fail = (msg: string) => new Error(`${msg}\n--- n8n ${opts.command} log (tail) ---\n${tail(log, 60)}`);

  function launch() {
    exited = undefined;
    const [program, ...args] = [...(opts.launcher ?? [nodeBin, n8nBin]), opts.command, ...(opts.args ?? [])];
    child = spawn(program, args, {
      cwd: userFolder,
      env,
      detached: true, // own process group, so stop() also kills the task-runner children
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    exitPromise = new Promise<void>((resolve) =>
      child.on('exit', (code, signal) => {
        exited = `n8n ${opts.command} exited (code ${code}, signal ${signal})`;
        resolve();
      }),
    );
    process.on('exit', killOnExit);
  }

  async function halt(): Promise<void> {
    process.off('exit', killOnExit);
    if (!exited) {
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
      await exitPromise;
      clearTimeout(timer);
    }
  }

  async function ready(): Promise<void> {
    const timeoutMs = opts.startTimeoutMs ?? 120_000;
    // /healthz/readiness answers 200 once the DB is migrated and the server fully started.
    await until(`n8n ${opts.command} to become ready`, async () => {
      if (exited) throw new Error(exited);
      const res = await fetch(`${baseUrl}/healthz/readiness`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
      return res?.status === 200;
    }, timeoutMs, 250);
  }

  const proc: N8nProcess = {
    command: opts.command,
    port,
    baseUrl,
    userFolder,
    pid: () => child.pid,
    logs: () => log,
    exited: () => exited,
    fail,
    async stop() {
      await halt();
      fs.rmSync(userFolder, { recursive: true, force: true });
    },
    async restart(extraEnv = {}) {
      await halt();
      Object.assign(env, extraEnv);
      launch();
      await ready().catch((e: Error) => {
        throw fail(`n8n ${opts.command} failed to restart: ${e.message}`);
      });
    },
  };

  launch();
  try {
    await ready();
  } catch (e) {
    await proc.stop();
    throw fail(`n8n ${opts.command} failed to start: ${(e as Error).message}`);
  }
  return proc;
}

export async function startN8n(opts: StartOptions): Promise<N8nInstance> {
  const password = `E2e-${randomBytes(12).toString('hex')}`; // satisfies n8n's rules: digit + uppercase
  const proc = await spawnN8n({ ...opts, command: 'start' });
  const { baseUrl, port, userFolder, fail } = proc;
  const exited = () => proc.exited();
  let cookie = '';

  async function request(kind: 'api' | 'rest', method: string, p: string, body?: unknown): Promise<any> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (kind === 'api') headers['x-n8n-api-key'] = instance.apiKey;
    else if (cookie) headers.cookie = cookie;
    const url = `${baseUrl}/${kind === 'api' ? 'api/v1' : 'rest'}${p}`;
    const send = () => fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(60_000) });
    const res = await send().catch((e: Error & { cause?: { code?: string } }) => {
      // A kept-alive connection that n8n closed while it sat idle (n8n's keep-alive timeout is 5 s;
      // a test that blocks the event loop, as trigger-pending's SQLite calibration does, keeps
      // undici from retiring it first) fails before n8n read the request. Only a GET is sent again.
      if (method !== 'GET' || e.cause?.code !== 'UND_ERR_SOCKET') throw e;
      return send();
    });
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
    if (setCookie) cookie = setCookie.split(';')[0]; // n8n may refresh the session cookie
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url} -> ${res.status}: ${text.slice(0, 1000)}`);
    if (!text) return undefined;
    const json = JSON.parse(text);
    // The internal REST API wraps results in { data }, the public API does not.
    return kind === 'rest' && json && typeof json === 'object' && 'data' in json ? json.data : json;
  }

  const stop = () => proc.stop();

  // n8n 2.x publishes through an outbox: the API call returns at once and the triggers
  // (e.g. production webhooks) go live ~1 s later. The editor polls this endpoint for that.
  async function waitForPublication(id: string, want: 'published' | 'not_published', timeoutMs: number) {
    let last: any;
    await until(`workflow ${id} to be ${want}`, async () => {
      if (exited()) throw new Error(exited());
      last = await request('rest', 'GET', `/workflows/${id}/publication-status`);
      if (want === 'published' && (last.status === 'failed' || last.status === 'partial')) {
        throw fail(`publishing workflow ${id} failed: ${JSON.stringify(last.triggers)}`);
      }
      return last.status === want;
    }, timeoutMs, 100).catch((e: Error) => {
      throw e.message.includes('--- n8n ') ? e : fail(`${e.message} (last status ${JSON.stringify(last)})`);
    });
  }

  const instance: N8nInstance = {
    baseUrl,
    port,
    apiKey: '',
    userFolder,
    api: (m, p, b) => request('api', m, p, b),
    rest: (m, p, b) => request('rest', m, p, b),
    async createCredential(type, name, data) {
      return request('api', 'POST', '/credentials', { type, name, data });
    },
    async createWorkflow(json) {
      return request('api', 'POST', '/workflows', { settings: { executionOrder: 'v1' }, ...json });
    },
    async publish(id, timeoutMs = 30_000) {
      await request('api', 'POST', `/workflows/${id}/publish`, {});
      await waitForPublication(id, 'published', timeoutMs);
    },
    async unpublish(id, timeoutMs = 30_000) {
      await request('api', 'POST', `/workflows/${id}/unpublish`);
      await waitForPublication(id, 'not_published', timeoutMs);
    },
    webhook(webhookPath, init) {
      return fetch(`${baseUrl}/webhook/${webhookPath}`, { signal: AbortSignal.timeout(120_000), ...init });
    },
    async runWorkflow(id, runOpts = {}) {
      const timeoutMs = runOpts.timeoutMs ?? 120_000;
      let trigger = runOpts.triggerNode;
      if (!trigger) {
        const wf = await request('api', 'GET', `/workflows/${id}`);
        const manual = (wf.nodes as Array<{ name: string; type: string }>).find(
          (n) => n.type === 'n8n-nodes-base.manualTrigger',
        );
        if (!manual) throw new Error(`workflow ${id} has no Manual Trigger node; pass opts.triggerNode`);
        trigger = manual.name;
      }
      // Same endpoint as the editor's "Execute workflow" button; it returns the
      // execution id at once and the run continues in the background.
      const started = await request('rest', 'POST', `/workflows/${id}/run`, { triggerToStartFrom: { name: trigger } });
      if (!started?.executionId) {
        throw fail(`workflow ${id} did not start (response ${JSON.stringify(started)}); is the trigger a webhook?`);
      }
      return toRunResult(await instance.waitForExecution(String(started.executionId), timeoutMs));
    },
    async executions(workflowId, execOpts = {}) {
      const q = new URLSearchParams({
        workflowId,
        includeData: String(execOpts.includeData ?? true),
        limit: String(execOpts.limit ?? 100),
      });
      return (await request('api', 'GET', `/executions?${q}`)).data;
    },
    async waitForExecution(executionId, timeoutMs = 120_000) {
      let execution: any;
      await until(`execution ${executionId} to finish`, async () => {
        if (exited()) throw new Error(exited());
        execution = await request('api', 'GET', `/executions/${executionId}?includeData=true`).catch(() => undefined);
        return !!execution && hasEnded(execution);
      }, timeoutMs, 100).catch((e: Error) => {
        throw fail(e.message);
      });
      return execution;
    },
    sessionCookie: () => cookie,
    logs: () => proc.logs(),
    stop,
    process: proc,
    async restart(extraEnv) {
      await proc.restart(extraEnv);
      // The owner and the API key live in the database; only the session is new.
      cookie = '';
      await request('rest', 'POST', '/login', { emailOrLdapLoginId: OWNER.email, password });
      if (!cookie) throw fail('login after restart returned no session cookie');
    },
  };

  try {
    // n8n 2.x always has user management: create the owner (the response logs us in).
    await request('rest', 'POST', '/owner/setup', { ...OWNER, password });
    if (!cookie) throw new Error('owner setup returned no session cookie');
    // A public-API key with every scope the owner may grant.
    const scopes: string[] = await request('rest', 'GET', '/api-keys/scopes');
    const key = await request('rest', 'POST', '/api-keys', { label: 'e2e', scopes, expiresAt: null });
    instance.apiKey = key.rawApiKey;
    return instance;
  } catch (e) {
    const err = e instanceof Error && e.message.includes('--- n8n ') ? e : fail(`n8n failed to start: ${(e as Error).message}`);
    await stop();
    throw err;
  }
}

export interface ExecutionPagesOptions {
  /** Stop at the first execution with this id or a lower one (0: every execution). */
  sinceId?: number;
  includeData?: boolean;
  /** Wraps each page's GET (P9 retries it while n8n is flooded). */
  read?: <T>(get: () => Promise<T>) => Promise<T>;
}

/** A workflow's executions from the public API, newest first, page after page (250 a page). */
export async function executionPages(n8n: N8nInstance, workflowId: string, opts: ExecutionPagesOptions = {}): Promise<any[]> {
  const { sinceId = 0, includeData = false, read = (get) => get() } = opts;
  const out: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const q = new URLSearchParams({ workflowId, includeData: String(includeData), limit: '250', ...(cursor ? { cursor } : {}) });
    const page = await read(() => n8n.api<{ data: any[]; nextCursor?: string | null }>('GET', `/executions?${q}`));
    for (const e of page.data) {
      if (Number(e.id) <= sinceId) return out;
      out.push(e);
    }
    if (!page.nextCursor || page.data.length === 0) return out;
    cursor = page.nextCursor;
  }
}

/** Executions of a workflow newer than `sinceId`, newest first, without their data. */
export async function newExecutions(n8n: N8nInstance, workflowId: string, sinceId: number): Promise<Array<{ id: number; status: string; startedAt: string; stoppedAt: string | null }>> {
  const all = await executionPages(n8n, workflowId, { sinceId });
  return all.map((e) => ({ id: Number(e.id), status: e.status, startedAt: e.startedAt, stoppedAt: e.stoppedAt }));
}

/** Runs one setup step; connector.e2e passes one that times it. */
export type Step = <T>(name: string, run: () => T | Promise<T>) => Promise<T>;

/** What a suite of our package runs against. */
export interface PackageStack {
  /** The local service, seeded (its demo workspace and key). */
  sb: Sandbox;
  /** An SDK client of the sandbox's demo workspace. */
  core: CertificateServiceClient;
  /** A real n8n with our built package loaded from a copy outside the repo (node types CUSTOM.<name>). */
  n8n: N8nInstance;
  /** Saves a credential for the sandbox's demo key (base URL: the bare origin, as users enter it); returns what a node's credentials hold. */
  credential(name?: string): Promise<{ id: string; name: string }>;
  /** Stops n8n, closes the sandbox and deletes the package copy (each even when one before it fails). */
  stop(): Promise<void>;
}

/**
 * n8n installed, our package built (when stale) and copied out of the repo (package-setup.ts
 * says why), a sandbox with `sandbox` options, and n8n started with the package: what every
 * e2e suite of the package starts from. Whatever started is stopped again if a later step fails.
 */
export async function startPackageStack(sandbox: SandboxOptions & { seed?: true } = {}, step: Step = async (_name, run) => run()): Promise<PackageStack> {
  const installed = fs.existsSync(path.join(n8nCacheDir(), '.installed-ok'));
  await step(installed ? 'n8n install (cached)' : 'n8n install', () => ensureN8nInstalled());
  await step('n8n package build (when stale)', () => ensurePackageBuilt());
  const extDir = await step('copy package to extensions dir', () => copyPackageToExtensionsDir(PACKAGE_DIR));
  let sb: Sandbox | undefined;
  let n8n: N8nInstance | undefined;
  const stop = async () => {
    try {
      await n8n?.stop();
    } finally {
      try {
        await sb?.close();
      } finally {
        fs.rmSync(extDir, { recursive: true, force: true });
      }
    }
  };
  try {
    sb = await step('sandbox start', () => createSandbox(sandbox));
    n8n = await step('n8n start', () => startN8n({ customExtensionsDir: extDir }));
  } catch (e) {
    await stop();
    throw e;
  }
  const [service, host] = [sb, n8n];
  return {
    sb: service,
    n8n: host,
    core: createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey }),
    async credential(name = 'Certificate Service (sandbox)') {
      const { id } = await host.createCredential('certificateServiceApi', name, { apiKey: service.apiKey, baseUrl: service.url });
      return { id, name };
    },
    stop,
  };
}

/** The env that makes n8n local, quiet and offline. Exported so the report/README can show it. */
export function n8nEnv(o: { port: number; userFolder: string; customExtensionsDir: string; runnerPort: number }) {
  return {
    N8N_USER_FOLDER: o.userFolder, // fresh SQLite DB, settings and encryption key per instance
    N8N_PORT: String(o.port),
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    N8N_PROTOCOL: 'http',
    N8N_WEBHOOK_URL: `http://127.0.0.1:${o.port}/`, // base of the webhook URLs n8n hands out
    ...(o.customExtensionsDir ? { N8N_CUSTOM_EXTENSIONS: o.customExtensionsDir } : {}),
    N8N_SECURE_COOKIE: 'false', // plain http on localhost
    // Task runners are always on in 2.x; the broker's default port 5679 would clash between instances.
    N8N_RUNNERS_BROKER_PORT: String(o.runnerPort),
    // Offline and quiet: no telemetry, update checks, templates, banners or onboarding.
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_HIRING_BANNER_ENABLED: 'false',
    N8N_DYNAMIC_BANNERS_ENABLED: 'false',
    N8N_AI_ENABLED: 'false',
    N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
    N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
    // Keep every execution so tests can inspect it.
    EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
    EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
    EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
    EXECUTIONS_DATA_PRUNE: 'false',
    GENERIC_TIMEZONE: 'UTC',
    N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5', // faster stop()
    N8N_LOG_LEVEL: 'info',
    N8N_LOG_OUTPUT: 'console',
  };
}

function toRunResult(execution: any): RunResult {
  const resultData = execution?.data?.resultData ?? {};
  const runData: Record<string, any[]> = resultData.runData ?? {};
  const outputOf = (nodeName: string, outputIndex = 0) => {
    const runs = runData[nodeName];
    const items = runs?.[runs.length - 1]?.data?.main?.[outputIndex] ?? [];
    return items.map((i: { json: Record<string, unknown> }) => i.json);
  };
  const lastNode: string | undefined = resultData.lastNodeExecuted;
  return {
    executionId: String(execution.id),
    status: execution.status,
    lastNode,
    items: lastNode ? outputOf(lastNode) : [],
    outputOf,
    error: resultData.error?.message,
    execution,
  };
}



function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function tail(text: string, lines: number): string {
  return text.split('\n').slice(-lines).join('\n');
}
