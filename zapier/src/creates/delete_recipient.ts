import { defineCreate } from 'zapier-platform-core';
import { withClient } from '../lib/client';
import { batchField, recipientField, text } from '../lib/inputs';

export default defineCreate({
  key: 'delete_recipient',
  noun: 'Certificate',
  display: {
    label: 'Delete Certificate',
    description: 'Deletes an issued certificate from its batch.',
  },
  operation: {
    inputFields: [batchField, recipientField],
    perform: withClient(async (client, _z, bundle) =>
      client.deleteRecipient(text(bundle.inputData.batch_id) ?? '', text(bundle.inputData.recipient_id) ?? ''),
    ),
    sample: { id: 'rec_8f2k1m4q', batchId: 'batch_3xy9w2', deleted: true },
    outputFields: [
      { key: 'id', label: 'Recipient ID', type: 'string' },
      { key: 'batchId', label: 'Batch ID', type: 'string' },
      { key: 'deleted', label: 'Deleted', type: 'boolean' },
    ],
  },
});
