import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { confirmable, confirmationToken, object } from './views';

export default defineTool({
  name: 'delete_subscription',
  title: 'Delete a subscription',
  description:
    'Deletes a webhook subscription: its URL gets no more events; a Zap or n8n workflow using it stops triggering. Asks first.',
  input: { subscriptionId: z.string().describe('whs_…, from list_subscriptions.'), confirmationToken },
  output: z.looseObject({ ...confirmable, deleted: object.optional() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  example: async (on) => ({ subscriptionId: await on.subscription() }),
  async run(args, { client, confirm }) {
    const s = await client.getSubscription(args.subscriptionId);
    const shown = { id: s.id, url: s.url, events: s.events };
    const ok = await confirm({ tool: 'delete_subscription', args, target: [s.id], action: `Delete webhook subscription ${s.id} (${s.url}, events ${s.events.join(', ')}): that URL stops receiving events.`, preview: { subscription: shown } });
    if (ok.kind !== 'go') return ok;
    await client.deleteSubscription(s.id);
    return { data: { done: true, deleted: shown } };
  },
});
