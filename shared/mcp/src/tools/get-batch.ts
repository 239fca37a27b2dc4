import { z } from 'zod/v4';
import { defineTool, READ_ONLY } from '../tool';
import { batchView } from './views';

export default defineTool({
  name: 'get_batch',
  title: 'Get a batch and its certificate variables',
  description:
    'One batch (id, title, designId, status) and the certificate variables its design asks for (name, required), which every recipient\'s "data" must fill. ' +
    'Call it before issue_certificates. Costs 3 to 4 requests (the batch, the designs\' pages, one page of its certificates when the design lists no variables) and no quota. ' +
    'variablesSource "design": from the design; "seen": names used by the batch\'s recent certificates; "none": unknown, any data is sent as given.',
  input: { batchId: z.string().describe('The batch id, as list_batches returns it.') },
  annotations: READ_ONLY,
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
