import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { batchView } from './views';

export default defineTool({
  name: 'create_batch',
  title: 'Create a batch',
  description:
    'Creates a batch: certificates are issued into a batch, which ties them to one design. Each call creates a new batch, even with the same title: ' +
    'look with list_batches first. Costs 1 request and no quota. Returns the batch (id, title, designId, status "active").',
  input: {
    title: z.string().min(1).describe('Batch title, e.g. the course and date.'),
    designId: z.string().min(1).describe('A design id from list_designs.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ title, designId }, { client }) {
    return { data: { batch: batchView(await client.createBatch({ title, designId })) } };
  },
});
