import { Router } from '../router';
import { authRoutes } from './auth';
import { batchRoutes } from './batches';
import { bulkRoutes } from './bulk';
import { certificateRoutes } from './certificates';
import { designRoutes } from './designs';
import { recipientRoutes } from './recipients';
import type { ApiRequest } from './types';
import { webhookRoutes } from './webhooks';

/** Every /api/v1 route. Static paths come before parameterised ones of the same length. */
export function createApiRouter(): Router<ApiRequest> {
  return new Router<ApiRequest>([
    ...authRoutes,
    ...designRoutes,
    ...batchRoutes,
    ...bulkRoutes,
    ...recipientRoutes,
    ...certificateRoutes,
    ...webhookRoutes,
  ]);
}
