import { z } from 'zod/v4';
import { defineTool } from '../tool';

export default defineTool({
  name: 'test_subscription',
  title: 'Send a test delivery',
  description: 'Asks the service to send a sample delivery to a webhook subscription\'s URL, to check the receiver. Costs 1 request, no quota. Returns whether the service accepted the request (not whether the receiver answered).',
  input: { subscriptionId: z.string().describe('The subscription id (whs_…), from list_subscriptions.') },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ subscriptionId }, { client }) {
    await client.testSubscription(subscriptionId);
    return { data: { done: true, subscriptionId } };
  },
});
