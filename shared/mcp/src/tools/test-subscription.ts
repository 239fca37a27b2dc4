import { z } from 'zod/v4';
import { defineTool } from '../tool';

export default defineTool({
  name: 'test_subscription',
  title: 'Send a test delivery',
  description:
    'Asks the service to send a sample delivery to a subscription\'s URL; done: accepted, not received.',
  input: { subscriptionId: z.string().describe('whs_…, from list_subscriptions.') },
  output: z.looseObject({ done: z.boolean(), subscriptionId: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  example: async (on) => ({ subscriptionId: await on.subscription() }),
  async run({ subscriptionId }, { client }) {
    await client.testSubscription(subscriptionId);
    return { data: { done: true, subscriptionId } };
  },
});
