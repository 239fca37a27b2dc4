// The payload of a test delivery (content "not shown" in the spec): a made-up recipient
// shaped exactly like a real one, plus the extras of the event type.
import type { EventType, Recipient } from '@certificate-service/sdk';
import type { EventExtras } from './events';
import { BOUNCE_ERROR } from './mail';

export function sampleRecipient(origin: string, type: EventType): { recipient: Recipient; extras: EventExtras } {
  const now = new Date().toISOString();
  const token = 'sample-share-token';
  const emailed = type === 'certificate.sent' || type === 'certificate.viewed';
  const recipient: Recipient = {
    id: 'rec_sample0000000000',
    batchId: 'batch_sample000000000',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    certificateId: `CERT-${new Date().getUTCFullYear()}-000000-0000`,
    shareToken: token,
    certUrl: `${origin}/v/${token}`,
    issueDate: now,
    expiryDate: null,
    data: { course: 'Sample course' },
    emailStatus: type === 'certificate.failed' ? 'failed' : emailed ? 'sent' : 'not_sent',
    emailSentAt: emailed ? now : null,
    createdAt: now,
  };
  const extras: EventExtras = {};
  if (type === 'certificate.failed') extras.error = BOUNCE_ERROR;
  if (type === 'certificate.viewed') {
    extras.viewer = { viewedAt: now, userAgent: 'Mozilla/5.0 (sample)', referer: '', ip: '203.0.113.7' };
  }
  return { recipient, extras };
}
