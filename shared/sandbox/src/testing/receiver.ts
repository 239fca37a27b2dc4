// A local webhook receiver for tests: records raw bodies and headers exactly as received
// (signatures are checked over the raw bytes) and answers as the test tells it to.
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  rawBody: string;
  headers: IncomingHttpHeaders;
  path: string;
  receivedAt: number;
}

/** A status code, a delayed status, never answer, or drop the connection. */
export type ReceiverAction = number | { status: number; delayMs: number } | 'hang' | 'reset';
export type Responder = (r: Received, index: number) => ReceiverAction;

export interface Receiver {
  url: string;
  received: Received[];
  respond(fn: Responder): void;
  /** Resolves once at least `count` requests (optionally only those passing `filter`) arrived. */
  waitFor(count: number, timeoutMs?: number, filter?: (r: Received) => boolean): Promise<Received[]>;
  clear(): void;
  close(): Promise<void>;
}

export async function startReceiver(responder: Responder = () => 200): Promise<Receiver> {
  let respond = responder;
  const received: Received[] = [];
  const wakers = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        rawBody: Buffer.concat(chunks).toString('utf8'),
        headers: req.headers,
        path: req.url ?? '/',
        receivedAt: Date.now(),
      };
      received.push(r);
      const action = respond(r, received.length - 1);
      for (const wake of wakers) wake();
      if (action === 'hang') return;
      if (action === 'reset') return void req.socket.destroy();
      const answer = (status: number) => res.writeHead(status, { 'Content-Type': 'text/plain' }).end('ok');
      if (typeof action === 'number') answer(action);
      else setTimeout(() => answer(action.status), action.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    respond: (fn) => void (respond = fn),
    waitFor: (count, timeoutMs = 3000, filter = () => true) =>
      new Promise((resolve, reject) => {
        const matching = () => received.filter(filter);
        const check = () => {
          if (matching().length < count) return;
          cleanup();
          resolve(matching());
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`receiver: expected ${count} request(s) within ${timeoutMs} ms, got ${matching().length}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          wakers.delete(check);
        };
        wakers.add(check);
        check();
      }),
    clear: () => void (received.length = 0),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
