import { z } from 'zod/v4';
import { object } from './views';
import { defineTool, READ_ONLY } from '../tool';

export default defineTool({
  name: 'list_subscriptions',
  title: 'List subscriptions',
  description:
    'Webhook subscriptions (no secrets). At most 20; each instant trigger that is on (Zap, n8n workflow) holds one. Create them with the CLI: the secret is shown once.',
  input: {},
  output: z.looseObject({ subscriptions: z.array(object), count: z.number(), limit: z.number() }),
  annotations: READ_ONLY,
  example: async () => ({}),
  async run(_args, { client }) {
    const subscriptions: Array<{ id: string; url: string; events: string[] }> = [];
    // Only these three fields: whatever else the service returns stays out of the answer.
    for await (const s of client.iterateSubscriptions()) subscriptions.push({ id: s.id, url: s.url, events: s.events });
    return { data: { subscriptions, count: subscriptions.length, limit: 20 } };
  },
});
