import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { batchOut, batchView, confirmable, confirmationToken } from './views';

export default defineTool({
  name: 'archive_batch',
  title: 'Archive a batch',
  description:
    'Archives a batch: nothing can be issued into it until unarchive_batch. Asks first.',
  input: { batchId: z.string(), confirmationToken },
  output: z.looseObject({ ...confirmable, batch: batchOut.optional() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  example: async (on) => ({ batchId: await on.batch() }),
  async run(args, { client, confirm }) {
    const batch = await client.getBatch(args.batchId);
    const ok = await confirm({ tool: 'archive_batch', args, target: [batch.id], action: `Archive batch ${batch.id} ("${batch.title}", now ${batch.status}): no certificate can be issued into it until it is unarchived.`, preview: { batch: batchView(batch) } });
    if (ok.kind !== 'go') return ok;
    return { data: { done: true, batch: batchView(await client.archiveBatch(batch.id)) } };
  },
});
