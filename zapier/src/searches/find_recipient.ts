import { defineSearch } from 'zapier-platform-core';
import { isNotFound } from '@certificate-service/sdk/core';
import { withClient } from '../lib/client';
import { batchField, emailField, text } from '../lib/inputs';
import { outputItem, RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';

export default defineSearch({
  key: 'find_recipient',
  noun: 'Certificate',
  display: {
    label: 'Find Certificate by Email',
    description: 'Finds the certificate issued to an email address in a batch.',
  },
  operation: {
    inputFields: [
      { ...batchField, helpText: 'The batch to look in.' },
      { ...emailField, required: true, helpText: 'The email address the certificate was issued to. Letter case is ignored.' },
    ],
    perform: withClient(async (client, _z, bundle) => {
      try {
        const recipient = await client.findRecipientByEmail(text(bundle.inputData.batch_id) ?? '', text(bundle.inputData.email) ?? '');
        return recipient ? [outputItem(recipient, RECIPIENT_OUTPUT_FIELDS)] : [];
      } catch (error) {
        if (isNotFound(error)) return []; // no such batch: nothing found
        throw error;
      }
    }),
    sample: SAMPLE_RECIPIENT,
    outputFields: RECIPIENT_OUTPUT_FIELDS,
  },
});
