// Every create (action), keyed by its key (= its file name).
import archive_batch from './archive_batch';
import create_batch from './create_batch';
import delete_recipient from './delete_recipient';
import issue_certificate from './issue_certificate';
import issue_certificates_bulk from './issue_certificates_bulk';
import send_certificate from './send_certificate';
import unarchive_batch from './unarchive_batch';
import update_recipient from './update_recipient';

export default {
  [create_batch.key]: create_batch,
  [issue_certificate.key]: issue_certificate,
  [issue_certificates_bulk.key]: issue_certificates_bulk,
  [send_certificate.key]: send_certificate,
  [update_recipient.key]: update_recipient,
  [delete_recipient.key]: delete_recipient,
  [archive_batch.key]: archive_batch,
  [unarchive_batch.key]: unarchive_batch,
};
