import { defineTool, READ_ONLY } from '../tool';

export default defineTool({
  name: 'list_subscriptions',
  title: 'List webhook subscriptions',
  description:
    'Lists the workspace\'s webhook subscriptions (id, url, events); a workspace holds at most 20, and each instant trigger (a Zap, an n8n workflow) that is on holds one. ' +
    'Costs 1 request per page, no quota. Signing secrets are never shown. Creating a subscription is left to the CLI (certsvc subscriptions create), because its signing secret is shown only once and no tool result may carry a secret.',
  input: {},
  annotations: READ_ONLY,
  async run(_args, { client }) {
    const subscriptions: Array<{ id: string; url: string; events: string[] }> = [];
    // Only these three fields: whatever else the service returns stays out of the answer.
    for await (const s of client.iterateSubscriptions()) subscriptions.push({ id: s.id, url: s.url, events: s.events });
    return { data: { subscriptions, count: subscriptions.length, limit: 20 } };
  },
});
