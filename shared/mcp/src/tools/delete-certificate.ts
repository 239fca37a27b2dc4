import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { certificateTarget, certificateView, confirmable, confirmationToken, findTarget, object } from './views';

export default defineTool({
  name: 'delete_certificate',
  title: 'Delete a certificate',
  description:
    'Deletes an issued certificate: its link stops working and it cannot be restored. Asks first.',
  input: { ...certificateTarget, confirmationToken },
  output: z.looseObject({ ...confirmable, deleted: object.optional() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  example: async (on) => {
    const { batchId, recipientId } = await on.certificate();
    return { batchId, recipientId };
  },
  async run(args, { client, confirm }) {
    const cert = await findTarget(client, args);
    const ok = await confirm({ tool: 'delete_certificate', args, target: [cert.batchId, cert.id], action: `Delete certificate ${cert.certificateId} of ${cert.name} <${cert.email}> in batch ${cert.batchId}. It cannot be restored.`, preview: { certificate: certificateView(cert) } });
    if (ok.kind !== 'go') return ok;
    await client.deleteRecipient(cert.batchId, cert.id);
    return { data: { done: true, deleted: { certificateId: cert.certificateId, email: cert.email } } };
  },
});
