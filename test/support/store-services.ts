// Real Redis and Postgres for the delivery stores' tests (Debian's programs, each in a temp folder
// on a free loopback port, through test/e2e/queue/services.ts), and the app-side clients the
// stores are given: node-redis (`redis`), ioredis and a `pg` Pool.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis as IORedis } from 'ioredis';
import { Pool } from 'pg';
import { createClient } from 'redis';
import type { RedisClientLike } from '@certificate-service/sdk';
import { startPostgres, startRedis } from '../e2e/queue/services';

export interface StoreServices {
  redisUrl: string;
  postgresUrl: string;
  /** A connected client of that kind; closed by stop(). */
  redis(kind: RedisKind): Promise<RedisClientLike>;
  /** A pg Pool on the test database; ended by stop(). */
  pool(max?: number): Pool;
  stop(): Promise<void>;
}

export type RedisKind = 'node-redis' | 'ioredis';

/** Starts what is asked for (Postgres takes a few seconds: initdb). */
export async function startStoreServices(want: { redis?: boolean; postgres?: boolean } = { redis: true, postgres: true }): Promise<StoreServices> {
  const dir = mkdtempSync(path.join(tmpdir(), 'certsvc-stores-'));
  const redis = want.redis ? await startRedis(dir) : undefined;
  const postgres = want.postgres ? await startPostgres(dir) : undefined;
  const closers: Array<() => Promise<unknown>> = [];
  const redisUrl = redis ? `redis://127.0.0.1:${redis.port}` : '';
  const postgresUrl = postgres ? `postgres://${postgres.user}@127.0.0.1:${postgres.port}/${postgres.database}` : '';
  return {
    redisUrl,
    postgresUrl,
    async redis(kind) {
      if (kind === 'ioredis') {
        const client = new IORedis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
        await client.connect();
        closers.push(() => client.quit());
        return client;
      }
      const client = createClient({ url: redisUrl });
      client.on('error', () => {}); // a stopped server at the end; the commands report their own
      await client.connect();
      closers.push(() => client.close());
      return client;
    },
    pool(max = 10) {
      const pool = new Pool({ connectionString: postgresUrl, max });
      pool.on('error', () => {});
      closers.push(() => pool.end());
      return pool;
    },
    async stop() {
      for (const close of closers.splice(0).reverse()) await close().catch(() => {});
      await redis?.stop();
      await postgres?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** For a jest file: starts the servers before its tests and stops them after; call it inside a test. */
export function storeServicesForFile(): () => StoreServices {
  let services: StoreServices | undefined;
  beforeAll(async () => {
    services = await startStoreServices();
  });
  afterAll(async () => {
    await services?.stop();
  });
  return () => {
    if (!services) throw new Error('the store services start in beforeAll: use them inside a test');
    return services;
  };
}
