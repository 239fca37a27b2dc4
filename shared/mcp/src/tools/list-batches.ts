import { z } from 'zod/v4';
import { defineTool, READ_ONLY } from '../tool';
import { batchOut, batchView } from './views';

export default defineTool({
  name: 'list_batches',
  title: 'List batches',
  description:
    'A page of batches: find the batch to issue into or look in. Pass nextCursor back for the next page.',
  input: {
    status: z.enum(['active', 'archived', 'all']).default('active'),
    limit: z.number().int().min(1).max(100).default(50),
    cursor: z.string().optional().describe('nextCursor of the last page.'),
  },
  output: z.looseObject({ batches: z.array(batchOut), nextCursor: z.string().nullable() }),
  annotations: READ_ONLY,
  example: async () => ({ status: 'active' as const, limit: 20 }),
  async run({ status, limit, cursor }, { client }) {
    const page = await client.listBatches({ status, limit, cursor });
    return { data: { batches: page.items.map(batchView), nextCursor: page.nextCursor } };
  },
});
