import { defineCreate } from 'zapier-platform-core';
import { withClient } from '../lib/client';
import { batchField, text } from '../lib/inputs';
import { BATCH_OUTPUT_FIELDS, SAMPLE_BATCH } from '../lib/samples';

export default defineCreate({
  key: 'unarchive_batch',
  noun: 'Batch',
  display: {
    label: 'Unarchive Batch',
    description: 'Restores an archived batch so certificates can be issued into it again.',
  },
  operation: {
    inputFields: [
      {
        ...batchField,
        dynamic: 'archived_batch_list.id.title',
        helpText: 'The archived batch to restore. Choose one, or enter a batch ID such as `batch_123`.',
      },
    ],
    perform: withClient(async (client, _z, bundle) => client.unarchiveBatch(text(bundle.inputData.batch_id) ?? '')),
    sample: SAMPLE_BATCH,
    outputFields: BATCH_OUTPUT_FIELDS,
  },
});
