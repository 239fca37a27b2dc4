/**
 * n8n 2.41.1 in queue mode, the way teams scale it out: Redis, Postgres, one main, N workers
 * (`n8n worker --concurrency=C`) and M webhook processes (`n8n webhook`) behind nginx.
 * Built on the single-mode harness (test/e2e/n8n/harness.ts): main is `startN8n` with the
 * queue env, the others are `spawnN8n` processes of the other kinds.
 *
 *   const q = await startQueueN8n({ customExtensionsDir });
 *   try { q.main.createWorkflow(...); fetch(`${q.url}/webhook/...`) ... } finally { await q.stop(); }
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureN8nInstalled, spawnN8n, startN8n, type N8nInstance, type N8nProcess } from '../n8n/harness';
import { startNginx, startPostgres, startRedis, type NginxOptions, type Service } from './services';
import { freePort } from '../../support/net';

export interface QueueOptions {
  customExtensionsDir: string;
  workers?: number;
  webhooks?: number;
  /** `n8n worker --concurrency` (jobs one worker runs at once). */
  concurrency?: number;
  /** How nginx spreads /webhook/ requests; default 'hash' (on X-Service-Delivery). */
  routing?: NginxOptions['routing'];
  /** Extra env for every n8n process. */
  env?: Record<string, string>;
}

export interface QueueN8n {
  /** The load balancer's origin: what the service delivers to (n8n's WEBHOOK_URL). */
  url: string;
  main: N8nInstance;
  workers: N8nProcess[];
  webhooks: N8nProcess[];
  redis: Service;
  postgres: Service;
  nginx: Service & { config: string };
  /** The env every n8n process shares (without per-process ports and folders). */
  env: Record<string, string>;
  /**
   * Starts another nginx in front of the webhook processes (all, or those on `webhookPorts`),
   * e.g. round-robin to compare, or one process only (P8).
   */
  addBalancer(routing: NginxOptions['routing'], webhookPorts?: number[]): Promise<Service & { url: string }>;
  /** Restarts the webhook processes one after the other (each comes back on its port). */
  restartWebhooks(): Promise<void>;
  stop(): Promise<void>;
}

export async function startQueueN8n(opts: QueueOptions): Promise<QueueN8n> {
  // Always run the install script: it also proves isolated-vm loads (queue mode needs it).
  ensureN8nInstalled({ quiet: true, verify: true });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-queue-'));
  fs.chmodSync(root, 0o755); // Postgres runs as another user (as root: `postgres`) and must enter it
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    // Reverse order: load balancer, n8n processes, then Redis and Postgres.
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    stops.length = 0;
    fs.rmSync(root, { recursive: true, force: true });
  };

  try {
    const [redis, postgres] = await Promise.all([startRedis(root), startPostgres(root)]);
    stops.push(() => redis.stop(), () => postgres.stop());

    const lbPort = await freePort();
    const url = `http://127.0.0.1:${lbPort}`;
    const env: Record<string, string> = {
      N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'), // the same in every process
      EXECUTIONS_MODE: 'queue',
      QUEUE_BULL_REDIS_HOST: '127.0.0.1',
      QUEUE_BULL_REDIS_PORT: String(redis.port),
      DB_TYPE: 'postgresdb',
      DB_POSTGRESDB_HOST: '127.0.0.1',
      DB_POSTGRESDB_PORT: String(postgres.port),
      DB_POSTGRESDB_DATABASE: postgres.database,
      DB_POSTGRESDB_USER: postgres.user,
      DB_POSTGRESDB_PASSWORD: '',
      N8N_WEBHOOK_URL: `${url}/`, // production webhook URLs point at the load balancer
      ...opts.env,
    };

    // Main first: it creates the schema the others wait for. Production webhooks are not
    // served by main (only /webhook-test/ and the UI/API), as in a scaled deployment.
    const main = await startN8n({
      customExtensionsDir: opts.customExtensionsDir,
      env: { ...env, N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' },
      startTimeoutMs: 240_000,
    });
    stops.push(() => main.stop());

    const start = (command: 'worker' | 'webhook', args: string[] = []) =>
      spawnN8n({ command, args, customExtensionsDir: opts.customExtensionsDir, env, startTimeoutMs: 240_000 }).then((p) => {
        stops.push(() => p.stop());
        return p;
      });
    const [workers, webhooks] = await Promise.all([
      Promise.all(Array.from({ length: opts.workers ?? 2 }, () => start('worker', [`--concurrency=${opts.concurrency ?? 10}`]))),
      Promise.all(Array.from({ length: opts.webhooks ?? 2 }, () => start('webhook'))),
    ]);

    const balancer = async (routing: NginxOptions['routing'], port?: number, webhookPorts = webhooks.map((w) => w.port)) => {
      const lb = await startNginx(root, { webhookPorts, mainPort: main.port, routing, port });
      stops.push(() => lb.stop());
      return lb;
    };
    const nginx = await balancer(opts.routing ?? 'hash', lbPort);

    return {
      url,
      main,
      workers,
      webhooks,
      redis,
      postgres,
      nginx,
      env,
      addBalancer: (routing, webhookPorts) => balancer(routing, undefined, webhookPorts),
      async restartWebhooks() {
        for (const w of webhooks) await w.restart();
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
