import { definePollingTrigger } from '../lib/polling-trigger';

export default definePollingTrigger({
  key: 'new_certificate',
  event: 'issued',
  label: 'New Certificate',
  description: 'Triggers when a certificate is issued in a batch. Checks every few minutes and uses no webhook subscription.',
  sampleEmailStatus: 'not_sent',
});
