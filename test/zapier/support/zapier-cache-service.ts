// An in-memory stand-in for Zapier's RPC service, cache methods only, for tests that need
// z.cache to behave as Zapier's shared cache does. zapier-platform-core's RPC client
// (src/tools/create-rpc-client.js) POSTs {id, storeKey, method, params} to `rpc_base` and
// reads {id, result}; core's own local stand-in (rpcCacheMock, used when a bundle has a
// `zcacheTestObj`, as appTester and `zapier-platform invoke` do) ignores `nx` and answers
// `true` to every set, so it cannot show a race.
//
// Here `zcache_set` with nx stores only an absent key and answers true only then (Redis
// SET NX, what Zapier's cache is built on); each request is handled to the end before the
// next one, so set-if-absent is atomic, as it is on Zapier. `rendezvous` answers the first
// two requests of each method together, so two concurrent performs meet at the cache in
// the worst order every time (both reads before either write).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CacheServiceOptions {
  /** Answer the first two requests of each method together. */
  rendezvous?: boolean;
  /** Refuse every set (answer false, store nothing), as Zapier does past its cache rate limit. */
  refuseSets?: boolean;
  /** Answer every request with a 500. */
  broken?: boolean;
  /** What a set that stored the key answers (Redis itself says "OK"); `true` by default. */
  storedAnswer?: unknown;
}

export interface CacheService {
  url: string;
  store: Map<string, string>;
  calls: Array<{ method: string; params: unknown[] }>;
  close(): Promise<void>;
}

export async function startCacheService(options: CacheServiceOptions = {}): Promise<CacheService> {
  const store = new Map<string, string>();
  const calls: CacheService['calls'] = [];
  const waiting = new Map<string, Array<() => void>>();
  const met = new Set<string>();

  function handle(method: string, params: unknown[]): unknown {
    const [key, value, , , nx] = params as [string, string, number | null, string[] | null, boolean | null];
    if (method === 'zcache_get') return store.get(key) ?? null;
    if (method === 'zcache_set') {
      if (options.refuseSets) return false;
      if (nx === true && store.has(key)) return false;
      store.set(key, value);
      return options.storedAnswer ?? true;
    }
    if (method === 'zcache_delete') return store.delete(key);
    throw new Error(`Unexpected method '${method}'`);
  }

  /** Resolves when this request may be answered. */
  function turn(method: string): Promise<void> {
    if (!options.rendezvous || met.has(method)) return Promise.resolve();
    const queue = waiting.get(method) ?? [];
    waiting.set(method, queue);
    return new Promise((resolve) => {
      queue.push(resolve);
      if (queue.length === 2) {
        met.add(method);
        for (const release of queue.splice(0)) release();
      }
    });
  }

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      const { id, method, params } = JSON.parse(body) as { id: string; method: string; params: unknown[] };
      calls.push({ method, params });
      if (options.broken) {
        res.writeHead(500).end();
        return;
      }
      await turn(method);
      let answer: object;
      try {
        answer = { id, result: handle(method, params) };
      } catch (error) {
        answer = { id, error: (error as Error).message };
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/rpc`,
    store,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
