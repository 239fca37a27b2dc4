import { z } from 'zod/v4';
import { defineTool, READ_ONLY } from '../tool';
import { batchOut, batchView, object } from './views';

export default defineTool({
  name: 'get_batch',
  title: 'Get a batch and its variables',
  description:
    'A batch and its design\'s variables (name, required); call it before issue_certificates. variablesSource "seen": from recent certificates; "none": unknown.',
  input: { batchId: z.string().describe('From list_batches.') },
  output: z.looseObject({ batch: batchOut, variablesSource: z.enum(['design', 'seen', 'none']), variables: z.array(object) }),
  annotations: READ_ONLY,
  example: async (on) => ({ batchId: await on.batch() }),
  async run({ batchId }, { client }) {
    const batch = await client.getBatch(batchId);
    const variables = await client.getBatchVariables(batch.id);
    return {
      data: {
        batch: batchView(batch),
        variablesSource: variables.source,
        variables: variables.variables.map((v) => ({ name: v.name, required: v.required, ...(v.label !== v.name ? { label: v.label } : {}), ...(v.type ? { type: v.type } : {}) })),
      },
    };
  },
});
