import { defineCertificateTrigger } from '../lib/certificate-trigger';

export default defineCertificateTrigger({
  key: 'certificate_issued',
  event: 'certificate.issued',
  label: 'Certificate Issued',
  description: 'Triggers when a certificate is issued to a recipient (through the API, a bulk issue, a CSV import or the web app).',
  occurredAt: (recipient) => recipient.createdAt,
  sampleEmailStatus: 'not_sent',
});
