import { defineSearch } from 'zapier-platform-core';
import { withClient } from '../lib/client';
import { batchField, text } from '../lib/inputs';
import { RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';
import { findOne } from '../lib/search';

export default defineSearch({
  key: 'find_certificate',
  noun: 'Certificate',
  display: {
    label: 'Find Certificate by Certificate ID',
    description: 'Finds an issued certificate by its certificate ID, such as CERT-2025-000123-4567.',
  },
  operation: {
    inputFields: [
      {
        ...batchField,
        required: false,
        helpText: 'Optional. Choose a batch to pick the certificate from a list; the search then only finds certificates of this batch. Leave empty to search every batch.',
      },
      {
        key: 'certificate_id',
        label: 'Certificate ID',
        required: true,
        dynamic: 'recipient_list.certificateId.label',
        helpText: 'The certificate ID printed on the certificate, such as `CERT-2025-000123-4567`. Type or map it, or choose a batch above and pick the certificate.',
      },
    ],
    perform: withClient(async (client, _z, bundle) => {
      const batchId = text(bundle.inputData.batch_id);
      const found = await findOne(() => client.getCertificate(text(bundle.inputData.certificate_id) ?? ''));
      return batchId ? found.filter((certificate) => certificate.batchId === batchId) : found;
    }),
    sample: SAMPLE_RECIPIENT,
    outputFields: RECIPIENT_OUTPUT_FIELDS,
  },
});
