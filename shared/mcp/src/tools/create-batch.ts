import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { batchOut, batchView } from './views';

export default defineTool({
  name: 'create_batch',
  title: 'Create a batch',
  description:
    'Creates a batch on a design. Each call makes a new one: look with list_batches first.',
  input: {
    title: z.string().min(1),
    designId: z.string().min(1).describe('From list_designs.'),
  },
  output: z.looseObject({ batch: batchOut }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  example: async (on) => ({ title: 'Spring course 2026', designId: await on.design() }),
  async run({ title, designId }, { client }) {
    return { data: { batch: batchView(await client.createBatch({ title, designId })) } };
  },
});
