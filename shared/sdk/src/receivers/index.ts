// Webhook receivers for Node web frameworks: each verifies a delivery from the raw body,
// dedupes it on X-Service-Delivery, and hands the typed event to `onEvent`.
export { createReceiver, NotRawBodyError, NotRecordedError, type DeliveryInfo, type ReceiverOptions, type ReceiverAnswer } from './receive';
export { createNodeHandler, createExpressHandler, type NodeReceiverOptions, type NodeRequestLike } from './node-http';
export { createFastifyHandler, fastifyReceiver } from './fastify';
export { createWebHandler } from './web';
