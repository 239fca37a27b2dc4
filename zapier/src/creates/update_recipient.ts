import { defineCreate } from 'zapier-platform-core';
import type { RecipientUpdate } from '@certificate-service/sdk/core';
import { withClient } from '../lib/client';
import { batchField, emailField, nameField, recipientField, text } from '../lib/inputs';
import { checkUpdateVariables, combinedData, loadVariableFields } from '../lib/variables';
import { outputItem, RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';

export default defineCreate({
  key: 'update_recipient',
  noun: 'Certificate',
  display: {
    label: 'Update Certificate',
    description: 'Updates the recipient name, email address or variables of an issued certificate.',
  },
  operation: {
    inputFields: [
      { ...batchField, altersDynamicFields: true },
      recipientField,
      { ...nameField, helpText: 'The new name. Leave empty to keep the current one.' },
      { ...emailField, helpText: 'The new email address. Leave empty to keep the current one.' },
      // Variables to change; the ones left empty keep their values.
      loadVariableFields({ partial: true }),
    ],
    perform: withClient(async (client, _z, bundle) => {
      const { batch_id, recipient_id, name, email } = bundle.inputData;
      const update: RecipientUpdate = {};
      if (text(name) !== undefined) update.name = text(name);
      if (text(email) !== undefined) update.email = text(email);
      const data = combinedData(bundle.inputData);
      if (data !== undefined) update.data = data;
      await checkUpdateVariables(client, text(batch_id) ?? '', bundle.inputData, data);
      // An empty update is refused by the core's validator before anything is sent.
      return outputItem(await client.updateRecipient(text(batch_id) ?? '', text(recipient_id) ?? '', update), RECIPIENT_OUTPUT_FIELDS);
    }),
    sample: SAMPLE_RECIPIENT,
    outputFields: RECIPIENT_OUTPUT_FIELDS,
  },
});
