import { checkFirstContact, observeAnswer, type ObservedAnswer } from '@certificate-service/sdk';
import { defineTool, READ_ONLY } from '../tool';

export default defineTool({
  name: 'doctor',
  title: 'Check the connection to the service',
  description:
    'Checks the key and that every answer of the service has a shape this server reads, with read-only calls: auth, batches, designs, one batch\'s certificates, subscriptions (6 requests, no quota). ' +
    'Use it when calls fail with UNEXPECTED_RESPONSE or an auth error. Returns one line per endpoint (status, list wrapper, fields) and ok.',
  input: {},
  annotations: READ_ONLY,
  async run(_args, { observedClient }) {
    let last: ObservedAnswer | undefined;
    const client = observedClient((status, headers, body) => (last = observeAnswer({ status, headers, body })));
    const checks = await checkFirstContact(client, () => last, () => (last = undefined));
    const failed = checks.filter((c) => c.failed).length;
    return {
      data: {
        ok: failed === 0,
        baseUrl: client.baseUrl,
        checks: checks.map((c) => ({ endpoint: c.endpoint, status: c.answer?.status ?? null, failed: c.failed, found: c.lines })),
        verdict: failed ? `${failed} check${failed > 1 ? 's' : ''} failed: tools cannot rely on these answers.` : 'Every answer has a shape this server reads.',
      },
    };
  },
});
