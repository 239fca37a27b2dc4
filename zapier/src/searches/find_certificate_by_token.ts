import { defineSearch } from 'zapier-platform-core';
import { withClient } from '../lib/client';
import { RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';
import { findOne } from '../lib/search';

export default defineSearch({
  key: 'find_certificate_by_token',
  noun: 'Certificate',
  display: {
    label: 'Find Certificate by Share Token or URL',
    description: 'Finds an issued certificate by its public share token or its certificate URL.',
  },
  operation: {
    inputFields: [
      {
        key: 'share_token',
        label: 'Share Token',
        required: true,
        helpText: 'The public share token, or the whole certificate URL (`https://…/v/<share token>`, the **Certificate URL** of an earlier step).',
      },
    ],
    perform: withClient(async (client, _z, bundle) => findOne(() => client.getCertificateByToken(bundle.inputData.share_token))),
    sample: SAMPLE_RECIPIENT,
    outputFields: RECIPIENT_OUTPUT_FIELDS,
  },
});
