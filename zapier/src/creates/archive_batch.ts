import { defineCreate } from 'zapier-platform-core';
import { withClient } from '../lib/client';
import { batchField, text } from '../lib/inputs';
import { BATCH_OUTPUT_FIELDS, SAMPLE_BATCH } from '../lib/samples';

export default defineCreate({
  key: 'archive_batch',
  noun: 'Batch',
  display: {
    label: 'Archive Batch',
    description: 'Archives an active batch. Archived batches can be restored with Unarchive Batch.',
  },
  operation: {
    inputFields: [{ ...batchField, helpText: 'The active batch to archive.' }],
    perform: withClient(async (client, _z, bundle) => client.archiveBatch(text(bundle.inputData.batch_id) ?? '')),
    sample: { ...SAMPLE_BATCH, status: 'archived' },
    outputFields: BATCH_OUTPUT_FIELDS,
  },
});
