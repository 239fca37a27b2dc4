import { z } from 'zod/v4';
import { checkFirstContact, observeAnswer, type ObservedAnswer } from '@certificate-service/sdk';
import { object } from './views';
import { defineTool, READ_ONLY } from '../tool';

export default defineTool({
  name: 'doctor',
  title: 'Check the connection',
  description:
    'Checks the key and that each answer has a shape this server reads (6 reads). Use after UNEXPECTED_RESPONSE or an auth error.',
  input: {},
  output: z.looseObject({ ok: z.boolean(), baseUrl: z.string(), checks: z.array(object), verdict: z.string() }),
  annotations: READ_ONLY,
  example: async () => ({}),
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
