import { z } from 'zod/v4';
import { defineTool, READ_ONLY } from '../tool';
import { batchView } from './views';

export default defineTool({
  name: 'list_batches',
  title: 'List batches',
  description:
    'Lists the workspace\'s batches (id, title, designId, status), one page at a time. Use it to find the batch to issue into or to look in. ' +
    'Costs 1 request per page and no quota. Returns { batches, nextCursor }: pass nextCursor back to get the next page.',
  input: {
    status: z.enum(['active', 'archived', 'all']).default('active').describe('Which batches (default active).'),
    limit: z.number().int().min(1).max(100).default(50).describe('Batches per page, 1 to 100 (default 50).'),
    cursor: z.string().optional().describe('nextCursor from the previous page.'),
  },
  output: {
    batches: z.array(z.object({ id: z.string(), title: z.string(), designId: z.string(), status: z.string() })),
    nextCursor: z.string().nullable(),
  },
  annotations: READ_ONLY,
  async run({ status, limit, cursor }, { client }) {
    const page = await client.listBatches({ status, limit, cursor });
    return { data: { batches: page.items.map(batchView), nextCursor: page.nextCursor } };
  },
});
