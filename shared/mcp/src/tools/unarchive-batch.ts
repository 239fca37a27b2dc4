import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { batchOut, batchView } from './views';

export default defineTool({
  name: 'unarchive_batch',
  title: 'Unarchive a batch',
  description:
    'Makes an archived batch active again, so certificates can be issued into it.',
  input: { batchId: z.string() },
  output: z.looseObject({ batch: batchOut }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  example: async (on) => ({ batchId: await on.archivedBatch() }),
  async run({ batchId }, { client }) {
    return { data: { batch: batchView(await client.unarchiveBatch(batchId)) } };
  },
});
