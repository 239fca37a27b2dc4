// Every endpoint of the API (spec section 4), named once: its method and route template. Paths
// are built from the template (request.ts pathOf), and errors, hints and tests refer to the route.
// It imports nothing, so any module (errors.ts too) can name an endpoint.

export interface Endpoint {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path template below /api/v1, e.g. `/batches/{batchId}/recipients`. */
  route: string;
  /** A POST that changes nothing (POST /auth), so it may be repeated like a GET. */
  safeToRepeat?: boolean;
}

export const ENDPOINTS = {
  auth: { method: 'POST', route: '/auth', safeToRepeat: true },
  listBatches: { method: 'GET', route: '/batches' },
  getBatch: { method: 'GET', route: '/batches/{batchId}' },
  createBatch: { method: 'POST', route: '/batches' },
  archiveBatch: { method: 'POST', route: '/batches/{batchId}/archive' },
  unarchiveBatch: { method: 'POST', route: '/batches/{batchId}/unarchive' },
  listDesigns: { method: 'GET', route: '/designs' },
  listRecipients: { method: 'GET', route: '/batches/{batchId}/recipients' },
  getRecipient: { method: 'GET', route: '/batches/{batchId}/recipients/{recipientId}' },
  issueCertificate: { method: 'POST', route: '/batches/{batchId}/recipients' },
  issueBulk: { method: 'POST', route: '/batches/{batchId}/recipients/bulk' },
  updateRecipient: { method: 'PATCH', route: '/batches/{batchId}/recipients/{recipientId}' },
  deleteRecipient: { method: 'DELETE', route: '/batches/{batchId}/recipients/{recipientId}' },
  sendCertificate: { method: 'POST', route: '/batches/{batchId}/recipients/{recipientId}/send' },
  getCertificate: { method: 'GET', route: '/certificates/{certificateId}' },
  getCertificateByToken: { method: 'GET', route: '/certificates/by-token/{shareToken}' },
  listSubscriptions: { method: 'GET', route: '/webhooks/subscriptions' },
  createSubscription: { method: 'POST', route: '/webhooks/subscriptions' },
  getSubscription: { method: 'GET', route: '/webhooks/subscriptions/{subscriptionId}' },
  deleteSubscription: { method: 'DELETE', route: '/webhooks/subscriptions/{subscriptionId}' },
  testSubscription: { method: 'POST', route: '/webhooks/subscriptions/{subscriptionId}/test' },
  rotateSubscriptionSecret: { method: 'POST', route: '/webhooks/subscriptions/{subscriptionId}/rotate-secret' },
} as const satisfies Record<string, Endpoint>;

/** `GET /batches/{batchId}`: how errors and "what came back" messages name an endpoint. */
export const endpointName = (endpoint: Endpoint): string => `${endpoint.method} ${endpoint.route}`;
