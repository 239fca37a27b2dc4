import type { ApiRoute } from './types';

export const authRoutes: ApiRoute[] = [
  {
    // Only checks the key: the middleware already resolved it to a workspace.
    method: 'POST',
    pattern: '/auth',
    handler: ({ ws }) => ({ status: 200, body: { workspaceId: ws.id, username: ws.username } }),
  },
];
