import { shapeList } from '../list-shapes';
import { paginate, parsePageQuery } from '../pagination';
import { designView } from '../views';
import type { ApiRoute } from './types';

export const designRoutes: ApiRoute[] = [
  {
    method: 'GET',
    pattern: '/designs',
    handler: ({ sb, ws, query }) => {
      const page = paginate(ws.designs, 'designs', parsePageQuery(query, 'designs'));
      return { status: 200, body: shapeList(sb.settings.listShape, 'designs', page.items.map(designView), page.nextCursor) };
    },
  },
];
