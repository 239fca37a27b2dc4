import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { confirmationToken } from './views';

export default defineTool({
  name: 'delete_subscription',
  title: 'Delete a webhook subscription',
  description:
    'Deletes a webhook subscription: its URL stops receiving events, and a Zap or n8n workflow that used it stops triggering until it is turned off and on again. The user is asked first ' +
    '(or a dry run answers with a confirmationToken). Costs 1 read and 1 write request, no quota.',
  input: { subscriptionId: z.string().describe('The subscription id (whs_…), from list_subscriptions.'), confirmationToken },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async run(args, { client, confirm }) {
    const s = await client.getSubscription(args.subscriptionId);
    const shown = { id: s.id, url: s.url, events: s.events };
    const ok = await confirm({ tool: 'delete_subscription', args, target: [s.id], action: `Delete webhook subscription ${s.id} (${s.url}, events ${s.events.join(', ')}): that URL stops receiving events.`, preview: { subscription: shown } });
    if (!ok.go) return ok.answer;
    await client.deleteSubscription(s.id);
    return { data: { done: true, deleted: shown } };
  },
});
