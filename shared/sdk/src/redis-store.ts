import { newAttempt, type DeliveryStore } from './webhooks/store';
import { keepMsOf, pendingMsOf } from './store-options';
import { credentialsOf, storeError } from './store-errors';

// A DeliveryStore in Redis, for receivers on several machines: one key per claim, holding
// `pending:<attempt>` (with PX pendingMs, so Redis frees it) or `done:<at>` (with PX keepMs).
// Redis's own clock expires both, one clock for every machine. The app passes the client it
// already has; the SDK imports no Redis library.

export interface RedisStoreOptions {
  /** As memoryStore's: a pending claim never settled is free again after this (default 5 minutes). */
  pendingMs?: number;
  /** How long a done key is kept (default 45 days: the sender's retries, about 39 hours, plus the recovery window). */
  keepDays?: number;
  /** Put before every key (default `certsvc:delivery:`). */
  prefix?: string;
}

/** A connected node-redis client (`createClient` of the `redis` package, v4 and later) or an ioredis client. */
export type RedisClientLike = { sendCommand(args: string[]): Promise<unknown> } | { call(command: string, ...args: string[]): Promise<unknown> };

// Releases the key only while this attempt's pending claim holds it.
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

/** A store in Redis through the app's own client (node-redis or ioredis), which the app connects and closes. */
export function redisStore(client: RedisClientLike, options: RedisStoreOptions = {}): DeliveryStore {
  const send = commandOf(client);
  const pendingMs = pendingMsOf('redisStore', options.pendingMs);
  const keepMs = keepMsOf('redisStore', options.keepDays);
  const prefix = options.prefix ?? 'certsvc:delivery:';
  if (typeof prefix !== 'string') throw new TypeError('redisStore: prefix must be a string.');
  const secrets = credentialsOf(client);
  const own = newAttempt();
  const unreadable = (what: string, value: unknown) =>
    new Error(`redisStore: ${what} answered ${JSON.stringify(value)?.slice(0, 80)}, which is not a claim of this store (pending:… or done:…); is another app writing under the prefix ${JSON.stringify(prefix)}?`);
  const run = async (what: string, args: string[]): Promise<unknown> => {
    try {
      return await send(args);
    } catch (error) {
      throw storeError('redisStore', what, error, secrets);
    }
  };
  return {
    async claim(key, attempt) {
      const k = prefix + key;
      // SET NX is the atomic claim; when it finds the key, its value says why. A key that expired
      // or was released between the two commands is free: try again.
      for (;;) {
        const set = await run(`the claim of ${key}`, ['SET', k, `pending:${attempt ?? own}`, 'NX', 'PX', String(pendingMs)]);
        if (set === 'OK') return 'taken';
        if (set !== null) throw unreadable(`SET NX for ${key}`, set);
        const value = await run(`reading ${key}`, ['GET', k]);
        if (value === null) continue;
        // Our two shapes only: a value another app wrote under the prefix is not a claim to guess at.
        if (typeof value === 'string' && value.startsWith('done:')) return 'done';
        if (typeof value === 'string' && value.startsWith('pending:')) return 'pending';
        throw unreadable(`${k}`, value);
      }
    },
    async settle(key, ok, at, attempt) {
      const k = prefix + key;
      if (ok) await run(`settling ${key}`, ['SET', k, `done:${at ?? ''}`, 'PX', String(keepMs)]);
      else await run(`releasing ${key}`, ['EVAL', RELEASE, '1', k, `pending:${attempt ?? own}`]);
    },
    async doneAt(key) {
      const value = await run(`reading ${key}`, ['GET', prefix + key]);
      const at = typeof value === 'string' && value.startsWith('done:') ? value.slice(5) : '';
      return at ? Number(at) : undefined;
    },
  };
}

/** Sends one command (an array of strings) through whichever client this is, or says what was passed instead. */
function commandOf(client: unknown): (args: string[]) => Promise<unknown> {
  const c = client as { call?: unknown; sendCommand?: unknown } | null;
  // ioredis has a sendCommand too (taking its own Command objects): look for `call` first.
  if (c && typeof c.call === 'function') return ([command, ...args]) => (c.call as (command: string, ...args: string[]) => Promise<unknown>).call(c, command, ...args);
  if (c && typeof c.sendCommand === 'function') return (args) => (c.sendCommand as (args: string[]) => Promise<unknown>).call(c, args);
  const what = c === null ? 'null' : typeof c === 'object' ? `an object with ${Object.keys(c).slice(0, 5).join(', ') || 'no keys'}` : typeof c;
  throw new TypeError(`redisStore: the client must be a node-redis client (createClient from the \`redis\` package, with sendCommand) or an ioredis client (with call); got ${what}.`);
}
