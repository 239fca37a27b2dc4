import { defineTool } from '../tool';
import { certificateTarget, certificateView, confirmationToken, findTarget } from './views';

export default defineTool({
  name: 'send_certificate',
  title: 'Email a certificate',
  description:
    'Emails an issued certificate to its recipient now (again, if it was sent before). An email cannot be recalled: the user is asked first (or a dry run answers with a confirmationToken). ' +
    'Costs 1 read and 1 write request, no quota. Identify the certificate by certificateId, or by batchId and recipientId.',
  input: { ...certificateTarget, confirmationToken },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, { client, confirm }) {
    const cert = await findTarget(client, args);
    const again = cert.emailSentAt ? ` It was already emailed at ${cert.emailSentAt}; this sends it again.` : '';
    const ok = await confirm({ tool: 'send_certificate', args, target: [cert.batchId, cert.id], action: `Email certificate ${cert.certificateId} to ${cert.name} <${cert.email}>.${again}`, preview: { certificate: certificateView(cert) } });
    if (!ok.go) return ok.answer;
    await client.sendCertificate(cert.batchId, cert.id);
    return { data: { done: true, sent: { certificateId: cert.certificateId, email: cert.email } } };
  },
});
