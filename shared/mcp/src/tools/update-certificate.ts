import { checkRequiredVariables, validateUpdate } from '@certificate-service/sdk';
import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { certificateTarget, certificateView, confirmable, confirmationToken, findTarget, object } from './views';

export default defineTool({
  name: 'update_certificate',
  title: 'Update a certificate',
  description:
    'Changes a certificate\'s name, email or data keys (others kept). Old values are lost: asks first. Required variables cannot be emptied.',
  input: {
    ...certificateTarget,
    name: z.string().optional(),
    email: z.string().optional(),
    data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('Variables to change.'),
    confirmationToken,
  },
  // The certificate as certificateView makes it (the tool list's budget: 1,000 characters a tool).
  output: z.looseObject({ ...confirmable, certificate: object.optional() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  example: async (on) => {
    const { batchId, recipientId } = await on.certificate();
    return { batchId, recipientId, name: 'Ada King' };
  },
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
    if (ok.kind !== 'go') return ok;
    return { data: { done: true, certificate: certificateView(await client.updateRecipient(cert.batchId, cert.id, update)) } };
  },
});
