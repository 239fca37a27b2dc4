import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { batchView, confirmationToken } from './views';

export default defineTool({
  name: 'archive_batch',
  title: 'Archive a batch',
  description:
    'Archives a batch: the service then refuses to issue into it (BATCH_ARCHIVED) until unarchive_batch. Asks the user first (or answers with a dry run and a confirmationToken ' +
    'when the client cannot ask). Costs 1 read and 1 write request, no quota. Returns the batch.',
  input: { batchId: z.string().describe('The batch id.'), confirmationToken },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async run(args, { client, confirm }) {
    const batch = await client.getBatch(args.batchId);
    const ok = await confirm({ tool: 'archive_batch', args, target: [batch.id], action: `Archive batch ${batch.id} ("${batch.title}", now ${batch.status}): no certificate can be issued into it until it is unarchived.`, preview: { batch: batchView(batch) } });
    if (!ok.go) return ok.answer;
    return { data: { done: true, batch: batchView(await client.archiveBatch(batch.id)) } };
  },
});
