// redisStore and postgresStore beyond the contract (contract.e2e.test.ts), against a real
// redis-server and Postgres: which Redis client it is, told at creation; the key prefix and the
// table; two processes' pools creating the table at once; expired done rows deleted; and no
// connection string or password from a client's error in ours.
import { postgresStore, redisStore, type RedisClientLike } from '@certificate-service/sdk';
import { freePort } from '../../support/net';
import { storeServicesForFile } from '../../support/store-services';
import { until } from '../../support/until';

jest.setTimeout(60_000);
const services = storeServicesForFile();

describe('redisStore', () => {
  test.each([
    ['a pg Pool', () => services().pool()],
    ['an object', () => ({ get: () => undefined })],
    ['nothing', () => undefined],
  ])('%s is refused at creation, saying which clients work', (_name, make) => {
    expect(() => redisStore(make() as unknown as RedisClientLike)).toThrow(/^redisStore: the client must be a node-redis client \(createClient from the `redis` package, with sendCommand\) or an ioredis client \(with call\); got /);
  });

  test.each(['node-redis', 'ioredis'] as const)('%s: keys under the prefix, pending with a TTL of pendingMs, done with keepDays', async (kind) => {
    const client = (await services().redis(kind)) as RedisClientLike & { call?: (...a: string[]) => Promise<unknown>; sendCommand?: (a: string[]) => Promise<unknown> };
    const send = (...args: string[]) => (client.call ? client.call(...args) : client.sendCommand!(args));
    const store = redisStore(client, { prefix: `app1:${kind}:`, pendingMs: 30_000, keepDays: 2 });
    expect(await store.claim('rec_1', 'attempt-1')).toBe('taken');
    expect(await send('GET', `app1:${kind}:rec_1`)).toBe('pending:attempt-1');
    expect(Number(await send('PTTL', `app1:${kind}:rec_1`))).toBeGreaterThan(25_000);
    await store.settle('rec_1', true, 42, 'attempt-1');
    expect(await send('GET', `app1:${kind}:rec_1`)).toBe('done:42');
    expect(Number(await send('PTTL', `app1:${kind}:rec_1`))).toBeGreaterThan(2 * 86_400_000 - 60_000);
    expect(await redisStore(client, { prefix: `app2:${kind}:` }).claim('rec_1')).toBe('taken'); // another prefix: another store
    // A value that is not one of ours is an error naming it, never read as pending or done.
    await send('SET', `app1:${kind}:rec_2`, 'someone else');
    await expect(store.claim('rec_2')).rejects.toThrow(/^redisStore: app1:(node-redis|ioredis):rec_2 answered "someone else", which is not a claim of this store/);
  });
});

describe('postgresStore', () => {
  test('pools of several processes creating the table at once: each works, one claim taken', async () => {
    for (let round = 0; round < 5; round++) {
      const table = `created_at_once_${round}`;
      const stores = Array.from({ length: 6 }, () => postgresStore(services().pool(2), { table }));
      const states = await Promise.all(stores.map((store, i) => store.claim('rec_1', `attempt-${i}`)));
      expect(states.sort()).toEqual(['pending', 'pending', 'pending', 'pending', 'pending', 'taken']);
    }
  });

  test('done rows past keepDays are deleted by a later claim (cheaply, a batch at a time)', async () => {
    const pool = services().pool();
    const table = 'pruned';
    const store = postgresStore(pool, { table, keepDays: 500 / 86_400_000 });
    for (let i = 0; i < 20; i++) {
      await store.claim(`rec_${i}`, 'x');
      await store.settle(`rec_${i}`, true, undefined, 'x');
    }
    const rows = async () => Number((await pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
    expect(await rows()).toBe(20);
    await new Promise((resolve) => setTimeout(resolve, 700));
    await postgresStore(pool, { table, keepDays: 1 }).claim('rec_new', 'y'); // a new store prunes on its first claim
    await until('the expired rows to be deleted', async () => (await rows()) === 1, 10_000);
  });

  test('bad options name the option', () => {
    const pool = services().pool();
    expect(() => postgresStore(pool, { table: 'deliveries; DROP TABLE x' })).toThrow('postgresStore: table must be a lower-case name, optionally schema.name (got "deliveries; DROP TABLE x").');
    expect(() => postgresStore(pool, { keepDays: -1 })).toThrow('postgresStore: keepDays must be a positive number of days (got -1).');
    expect(() => postgresStore({} as never)).toThrow('postgresStore: pass a `pg` Pool');
  });
});

describe('no secret from a client reaches our errors', () => {
  const PASSWORD = 'hunter2-very-secret';

  test('a real pg Pool whose server is gone: the error names the step, not the connection string', async () => {
    const { Pool } = await import('pg');
    const port = await freePort();
    const pool = new Pool({ connectionString: `postgres://app:${PASSWORD}@127.0.0.1:${port}/db`, connectionTimeoutMillis: 2_000 });
    const error = await Promise.resolve(postgresStore(pool).claim('rec_1')).catch((e: Error) => e);
    await pool.end();
    expect(String(error)).toMatch(/^Error: postgresStore: creating table certsvc_deliveries failed: .*ECONNREFUSED/);
    expect(JSON.stringify({ message: (error as Error).message, cause: (error as Error).cause, stack: (error as Error).stack })).not.toContain(PASSWORD);
  });

  test.each([
    ['ioredis', { call: async () => Promise.reject(new Error(`Connection to redis://default:${PASSWORD}@cache:6379 lost`)), options: { password: PASSWORD } }],
    ['node-redis', { sendCommand: async () => Promise.reject(Object.assign(new Error(`WRONGPASS for password=${PASSWORD}`), { code: 'WRONGPASS' })), options: { url: `redis://:${PASSWORD}@cache` } }],
  ])('a %s client whose error carries the password: ours has it redacted, and no cause', async (_name, client) => {
    const error = (await Promise.resolve(redisStore(client as unknown as RedisClientLike).claim('rec_1')).catch((e: Error) => e)) as Error;
    expect(error.message).toMatch(/^redisStore: the claim of rec_1 failed: /);
    expect(error.message).toContain('[redacted]');
    expect(JSON.stringify({ message: error.message, cause: error.cause, stack: error.stack })).not.toContain(PASSWORD);
  });

  test('a pg client whose error echoes its connection string', async () => {
    const pool = { options: { connectionString: `postgres://app:${PASSWORD}@db/app` }, query: async () => Promise.reject(Object.assign(new Error(`could not connect with postgres://app:${PASSWORD}@db/app`), { code: 'ECONNRESET' })) };
    const error = (await Promise.resolve(postgresStore(pool).claim('rec_1')).catch((e: Error) => e)) as Error;
    expect(error.message).toBe('postgresStore: creating table certsvc_deliveries failed: could not connect with [redacted] (ECONNRESET)');
  });
});
