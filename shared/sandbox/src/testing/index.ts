// Helpers for tests against the sandbox: a raw JSON client that shows the wire as it is, and
// a local webhook receiver that records deliveries byte for byte and answers as told.
export { Api, sleep, type ApiResponse, type CallOptions } from './api';
export { startReceiver, type Receiver, type Received, type ReceiverAction, type Responder } from './receiver';
