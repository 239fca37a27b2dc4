import { definePollingTrigger } from '../lib/polling-trigger';

export default definePollingTrigger({
  key: 'certificate_email_failed',
  event: 'failed',
  label: 'Certificate Email Failed',
  description: 'Triggers when the email of a certificate in a batch failed to send. Checks every few minutes and uses no webhook subscription.',
  sampleEmailStatus: 'failed',
});
