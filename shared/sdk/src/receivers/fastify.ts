import { receiverWith, type ReceiverOptions } from './receive';

// Structural types: the SDK does not depend on fastify; a real FastifyInstance fits these.
interface FastifyRequestLike {
  body?: unknown;
  headers: Record<string, string | string[] | undefined>;
}
interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(payload?: unknown): unknown;
}
type FastifyHandler = (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>;
interface FastifyLike {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    options: { parseAs: 'buffer'; bodyLimit?: number },
    parser: (request: never, body: Buffer, done: (error: Error | null, body?: Buffer) => void) => void,
  ): void;
  post(path: string, handler: FastifyHandler): unknown;
}

/**
 * A route handler: answers from `request.body`, which must be the raw Buffer (see
 * `fastifyReceiver`). Behind Fastify's default JSON parser it answers 400 NOT_RAW_BODY.
 */
export function createFastifyHandler(options: ReceiverOptions): FastifyHandler {
  const receive = receiverWith(options, "In Fastify, register the receiver as a plugin, app.register(fastifyReceiver({ secret, onEvent }), { prefix: '/hooks/certificates' }): it keeps bodies raw in its own scope.");
  return async (request, reply) => {
    const answer = await receive(request.body, request.headers);
    return reply.code(answer.status).headers(answer.headers ?? {}).send(answer.body);
  };
}

/**
 * A Fastify plugin: `app.register(fastifyReceiver({ secret, onEvent }), { prefix: '/hooks' })`
 * serves `POST /hooks` (or `path` under the prefix). Inside the plugin's own encapsulated
 * context every body is kept as a raw Buffer, so the app's other routes keep their JSON parser.
 */
export function fastifyReceiver(options: ReceiverOptions & { path?: string; bodyLimit?: number }) {
  const handler = createFastifyHandler(options);
  return async function certificateServiceReceiver(instance: FastifyLike): Promise<void> {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.bodyLimit }, (_request, body, done) => done(null, body));
    instance.post(options.path ?? '/', handler);
  };
}
