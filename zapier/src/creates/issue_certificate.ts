import { defineCreate } from 'zapier-platform-core';
import { withClient } from '../lib/client';
import { batchField, dataField, dict, emailField, flag, nameField, sendField, text } from '../lib/inputs';
import { RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';

export default defineCreate({
  key: 'issue_certificate',
  noun: 'Certificate',
  display: {
    label: 'Issue Certificate',
    description: 'Creates a certificate for one recipient in a batch, and optionally emails it right away. Uses one unit of your plan quota.',
  },
  operation: {
    inputFields: [
      batchField,
      { ...nameField, required: true },
      { ...emailField, required: true },
      dataField,
      sendField,
    ],
    perform: withClient(async (client, _z, bundle) => {
      const { batch_id, name, email, data, send } = bundle.inputData;
      // Not retried if the answer is lost: the core reports "outcome unknown" instead of issuing twice.
      return client.issueCertificate(
        text(batch_id) ?? '',
        { name: text(name) ?? '', email: text(email) ?? '', data: dict(data) as Record<string, unknown> | undefined },
        { send: flag(send) ?? false },
      );
    }),
    sample: SAMPLE_RECIPIENT,
    outputFields: RECIPIENT_OUTPUT_FIELDS,
  },
});
