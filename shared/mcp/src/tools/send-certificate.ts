import { z } from 'zod/v4';
import { defineTool } from '../tool';
import { certificateTarget, certificateView, confirmable, confirmationToken, findTarget, object } from './views';

export default defineTool({
  name: 'send_certificate',
  title: 'Email a certificate',
  description:
    'Emails a certificate to its recipient now (again if sent before); an email cannot be recalled. Asks first.',
  input: { ...certificateTarget, confirmationToken },
  output: z.looseObject({ ...confirmable, sent: object.optional() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  example: async (on) => ({ certificateId: (await on.certificate()).certificateId }),
  async run(args, { client, confirm }) {
    const cert = await findTarget(client, args);
    const again = cert.emailSentAt ? ` It was already emailed at ${cert.emailSentAt}; this sends it again.` : '';
    const ok = await confirm({ tool: 'send_certificate', args, target: [cert.batchId, cert.id], action: `Email certificate ${cert.certificateId} to ${cert.name} <${cert.email}>.${again}`, preview: { certificate: certificateView(cert) } });
    if (ok.kind !== 'go') return ok;
    await client.sendCertificate(cert.batchId, cert.id);
    return { data: { done: true, sent: { certificateId: cert.certificateId, email: cert.email } } };
  },
});
