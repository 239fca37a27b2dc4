import type { IncomingMessage, ServerResponse } from 'node:http';
import { receiverWith, type ReceiverOptions } from './receive';

/** Node's request, as Express hands it on too: `body` is set when a body parser ran. */
export type NodeRequestLike = IncomingMessage & { body?: unknown };

export interface NodeReceiverOptions extends ReceiverOptions {
  /** Largest body read from the stream (default 1 MiB); larger answers 413. */
  maxBodyBytes?: number;
}

/**
 * A handler for `http.createServer` and, unchanged, an Express route handler:
 * `app.post('/hooks', express.raw({ type: 'application/json' }), createExpressHandler({ secret, onEvent }))`.
 * It reads the raw body from the stream, or takes the Buffer `express.raw` left in `req.body`;
 * a body `express.json()` already parsed is answered 400 NOT_RAW_BODY, and `onError` is told
 * why, with the fix.
 */
export function createNodeHandler(options: NodeReceiverOptions): (req: NodeRequestLike, res: ServerResponse) => Promise<void> {
  const receive = receiverWith(
    options,
    "In Express, give this route express.raw({ type: 'application/json' }) before the receiver, and keep an app-wide express.json() off it (register it after this route, or skip this path).",
  );
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  return async (req, res) => {
    let raw: unknown;
    try {
      raw = req.body !== undefined ? req.body : await readBody(req, maxBodyBytes);
    } catch {
      res.destroy(); // the sender went away mid-body; there is no one to answer
      return;
    }
    const answer = raw === TOO_LARGE ? { status: 413, body: { error: 'BODY_TOO_LARGE', message: `The body is over ${maxBodyBytes} bytes.` } } : await receive(raw, req.headers);
    res.writeHead(answer.status, { 'Content-Type': 'application/json', ...('headers' in answer ? answer.headers : undefined) }).end(JSON.stringify(answer.body));
  };
}

/** The same handler: Express passes Node's own request and response objects. */
export const createExpressHandler = createNodeHandler;

const TOO_LARGE = Symbol('too large');

async function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined | typeof TOO_LARGE> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return TOO_LARGE;
    chunks.push(chunk);
  }
  return size === 0 ? undefined : Buffer.concat(chunks);
}
