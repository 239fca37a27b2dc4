import { defineCertificateTrigger } from '../lib/certificate-trigger';

export default defineCertificateTrigger({
  key: 'certificate_viewed',
  event: 'certificate.viewed',
  label: 'Certificate Viewed',
  description: 'Triggers when a recipient opens their certificate in the public viewer for the first time.',
  occurredAt: (recipient) => recipient.createdAt,
  sampleEmailStatus: 'sent',
  sampleExtras: {
    viewer: {
      viewedAt: '2025-06-02T10:02:11.000Z',
      userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15',
      referer: 'https://mail.example.com/',
      ip: '203.0.113.7',
    },
  },
  // The recipient list does not carry the viewer; only a real event does. The view time
  // is the item's own event time, as in a delivery.
  listExtras: (occurredAt) => ({ viewer: { viewedAt: occurredAt, userAgent: '', referer: '', ip: '' } }),
  extraOutputFields: [
    { key: 'viewer__viewedAt', label: 'Viewed At', type: 'datetime' },
    { key: 'viewer__userAgent', label: 'Viewer User Agent', type: 'string' },
    { key: 'viewer__referer', label: 'Viewer Referer', type: 'string' },
    { key: 'viewer__ip', label: 'Viewer IP Address', type: 'string' },
  ],
});
