import { notFound } from '../errors';
import type { RecipientRecord } from '../store';
import type { ApiRequest, ApiRoute } from './types';

/** Lookups stay inside the caller's workspace: another workspace's certificate is a 404. */
function own(r: ApiRequest, rec: RecipientRecord | undefined, what: string, id: string) {
  if (!rec || rec.workspaceId !== r.ws.id) throw notFound(what, id);
  return { status: 200, body: rec.recipient };
}

export const certificateRoutes: ApiRoute[] = [
  {
    method: 'GET',
    pattern: '/certificates/by-token/:token',
    handler: (r, { token }) => own(r, r.sb.store.byShareToken.get(token), 'certificate', token),
  },
  {
    method: 'GET',
    pattern: '/certificates/:certificateId',
    handler: (r, { certificateId }) =>
      own(r, r.sb.store.byCertificateId.get(certificateId), 'certificate', certificateId),
  },
];
