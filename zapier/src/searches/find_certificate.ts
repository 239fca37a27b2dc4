import { defineSearch } from 'zapier-platform-core';
import { withClient } from '../lib/client';
import { text } from '../lib/inputs';
import { RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';
import { findOne } from '../lib/search';

export default defineSearch({
  key: 'find_certificate',
  noun: 'Certificate',
  display: {
    label: 'Find Certificate by ID',
    description: 'Finds an issued certificate by its certificate ID, such as CERT-2025-000123-4567.',
  },
  operation: {
    inputFields: [
      {
        key: 'certificate_id',
        label: 'Certificate ID',
        required: true,
        helpText: 'The human-readable certificate ID printed on the certificate, such as `CERT-2025-000123-4567`.',
      },
    ],
    perform: withClient(async (client, _z, bundle) => findOne(() => client.getCertificate(text(bundle.inputData.certificate_id) ?? ''))),
    sample: SAMPLE_RECIPIENT,
    outputFields: RECIPIENT_OUTPUT_FIELDS,
  },
});
