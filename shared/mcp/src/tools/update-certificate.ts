import { checkRequiredVariables, validateUpdate } from '@certificate-service/sdk';
import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { certificateTarget, certificateView, confirmationToken, findTarget } from './views';

export default defineTool({
  name: 'update_certificate',
  title: 'Update a certificate',
  description:
    'Changes an issued certificate\'s name, email or variables (data keys given replace those values; others are kept). The old values are not kept: the user is asked first ' +
    '(or a dry run answers with a confirmationToken). Required design variables cannot be emptied. Costs 3 to 5 reads and 1 write request, no quota. ' +
    'Identify the certificate by certificateId, or by batchId and recipientId.',
  input: {
    ...certificateTarget,
    name: z.string().optional().describe('New name.'),
    email: z.string().optional().describe('New email address.'),
    data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('Variables to change, e.g. {"score": "98"}.'),
    confirmationToken,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async run(args, { client, confirm }) {
    const update = { name: args.name, email: args.email, data: args.data };
    const body = client.check(() => validateUpdate(update));
    const cert = await findTarget(client, args);
    if (body.data) {
      const { variables } = await client.getBatchVariables(cert.batchId);
      client.check(() => checkRequiredVariables(variables, body.data as Record<string, unknown>, { partial: true }));
    }
    const changes = Object.entries(body).map(([k, v]) => `${k}: ${JSON.stringify(k === 'data' ? Object.fromEntries(Object.keys(v as object).map((d) => [d, cert.data?.[d] ?? null])) : cert[k])} → ${JSON.stringify(v)}`);
    const ok = await confirm({ tool: 'update_certificate', args, target: [cert.batchId, cert.id], action: `Update certificate ${cert.certificateId} (${cert.email}): ${changes.join('; ')}.`, preview: { certificate: certificateView(cert), changes: body } });
    if (!ok.go) return ok.answer;
    return { data: { done: true, certificate: certificateView(await client.updateRecipient(cert.batchId, cert.id, update)) } };
  },
});
