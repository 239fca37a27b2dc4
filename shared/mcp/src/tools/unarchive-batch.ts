import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { batchView } from './views';

export default defineTool({
  name: 'unarchive_batch',
  title: 'Unarchive a batch',
  description: 'Makes an archived batch active again, so certificates can be issued into it. Costs 1 request, no quota. Returns the batch.',
  input: { batchId: z.string().describe('The batch id.') },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run({ batchId }, { client }) {
    return { data: { batch: batchView(await client.unarchiveBatch(batchId)) } };
  },
});
