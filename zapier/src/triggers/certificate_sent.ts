import { defineCertificateTrigger } from '../lib/certificate-trigger';

export default defineCertificateTrigger({
  key: 'certificate_sent',
  event: 'certificate.sent',
  label: 'Certificate Sent',
  description: 'Triggers when a certificate email is successfully handed to the mail provider.',
  emailStatus: 'sent',
  occurredAt: (recipient) => recipient.emailSentAt ?? recipient.createdAt,
  sampleEmailStatus: 'sent',
});
