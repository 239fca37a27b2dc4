// Every trigger, keyed by its key (= its file name).
import archived_batch_list from './archived_batch_list';
import batch_list from './batch_list';
import certificate_email_failed from './certificate_email_failed';
import certificate_email_sent from './certificate_email_sent';
import certificate_failed from './certificate_failed';
import certificate_issued from './certificate_issued';
import certificate_sent from './certificate_sent';
import certificate_viewed from './certificate_viewed';
import design_list from './design_list';
import new_certificate from './new_certificate';
import recipient_list from './recipient_list';

export default {
  [certificate_issued.key]: certificate_issued,
  [certificate_sent.key]: certificate_sent,
  [certificate_failed.key]: certificate_failed,
  [certificate_viewed.key]: certificate_viewed,
  // Polling: no subscription (see lib/polling-trigger.ts).
  [new_certificate.key]: new_certificate,
  [certificate_email_sent.key]: certificate_email_sent,
  [certificate_email_failed.key]: certificate_email_failed,
  [batch_list.key]: batch_list,
  [archived_batch_list.key]: archived_batch_list,
  [design_list.key]: design_list,
  [recipient_list.key]: recipient_list,
};
