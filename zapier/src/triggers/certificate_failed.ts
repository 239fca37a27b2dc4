import { defineCertificateTrigger } from '../lib/certificate-trigger';

export default defineCertificateTrigger({
  key: 'certificate_failed',
  event: 'certificate.failed',
  label: 'Certificate Failed',
  description: 'Triggers when a certificate email fails to send because the mail provider rejected it.',
  emailStatus: 'failed',
  occurredAt: (recipient) => recipient.emailSentAt ?? recipient.createdAt,
  sampleEmailStatus: 'failed',
  sampleExtras: { error: 'Mailbox unavailable: the recipient address does not exist.' },
  // The recipient list does not say why an email failed; only a real event carries it.
  listExtras: () => ({ error: '' }),
  extraOutputFields: [{ key: 'error', label: 'Error Message', type: 'string' }],
});
