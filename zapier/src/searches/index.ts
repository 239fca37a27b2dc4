// Every search, keyed by its key (= its file name).
import find_certificate from './find_certificate';
import find_certificate_by_token from './find_certificate_by_token';
import find_recipient from './find_recipient';

export default {
  [find_certificate.key]: find_certificate,
  [find_certificate_by_token.key]: find_certificate_by_token,
  [find_recipient.key]: find_recipient,
};
