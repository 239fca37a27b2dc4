import { defineCreate } from 'zapier-platform-core';
import type { RecipientUpdate } from '@certificate-service/sdk/core';
import { withClient } from '../lib/client';
import { batchField, dataField, dict, emailField, nameField, recipientField, text } from '../lib/inputs';
import { RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';

export default defineCreate({
  key: 'update_recipient',
  noun: 'Recipient',
  display: {
    label: 'Update Recipient',
    description: 'Updates the name, email address or certificate variables of an issued certificate\'s recipient.',
  },
  operation: {
    inputFields: [
      batchField,
      recipientField,
      { ...nameField, helpText: 'The new name. Leave empty to keep the current one.' },
      { ...emailField, helpText: 'The new email address. Leave empty to keep the current one.' },
      { ...dataField, helpText: 'Variables to change. Variables not listed here keep their values.' },
    ],
    perform: withClient(async (client, _z, bundle) => {
      const { batch_id, recipient_id, name, email, data } = bundle.inputData;
      const update: RecipientUpdate = {};
      if (text(name) !== undefined) update.name = text(name);
      if (text(email) !== undefined) update.email = text(email);
      if (dict(data) !== undefined) update.data = dict(data) as Record<string, unknown>;
      // An empty update is refused by the core's validator before anything is sent.
      return client.updateRecipient(text(batch_id) ?? '', text(recipient_id) ?? '', update);
    }),
    sample: SAMPLE_RECIPIENT,
    outputFields: RECIPIENT_OUTPUT_FIELDS,
  },
});
