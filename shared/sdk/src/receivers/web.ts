import { receiverWith, type ReceiverOptions } from './receive';

/**
 * A handler on the Web-standard `Request`/`Response`: a Next.js route handler
 * (`export const POST = createWebHandler({ secret, onEvent })`), Hono (`(c) => handler(c.req.raw)`),
 * Bun.serve, Deno. Pass the untouched request: one whose body was already read
 * (`await request.json()`) is answered 400 NOT_RAW_BODY.
 */
export function createWebHandler(options: ReceiverOptions): (request: Request) => Promise<Response> {
  const receive = receiverWith(options, 'Pass the request untouched: do not read its body (request.json(), request.text()) before the handler.');
  return async (request) => {
    // A body already read can only have been read as something other than the raw bytes we need.
    const raw = request.bodyUsed ? { alreadyRead: true } : Buffer.from(await request.arrayBuffer());
    const answer = await receive(raw, Object.fromEntries(request.headers));
    return Response.json(answer.body, { status: answer.status, headers: answer.headers });
  };
}
