import { defineSearch } from 'zapier-platform-core';
import { withClient } from '../lib/client';
import { text } from '../lib/inputs';
import { RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';
import { findOne } from '../lib/search';

export default defineSearch({
  key: 'find_certificate_by_token',
  noun: 'Certificate',
  display: {
    label: 'Find Certificate by Share Token',
    description: 'Finds an issued certificate by the public share token from its viewer link.',
  },
  operation: {
    inputFields: [
      {
        key: 'share_token',
        label: 'Share Token',
        required: true,
        helpText: 'The public share token, the last part of the certificate URL (`.../v/<share token>`).',
      },
    ],
    perform: withClient(async (client, _z, bundle) => findOne(() => client.getCertificateByToken(text(bundle.inputData.share_token) ?? ''))),
    sample: SAMPLE_RECIPIENT,
    outputFields: RECIPIENT_OUTPUT_FIELDS,
  },
});
