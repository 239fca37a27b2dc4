import { definePollingTrigger } from '../lib/polling-trigger';

export default definePollingTrigger({
  key: 'certificate_email_sent',
  event: 'sent',
  label: 'Certificate Email Sent',
  description: 'Triggers when the email of a certificate in a batch has been sent. Checks every few minutes and uses no webhook subscription.',
  sampleEmailStatus: 'sent',
});
