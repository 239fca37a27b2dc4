import { defineCreate } from 'zapier-platform-core';
import { withClient } from '../lib/client';
import { text } from '../lib/inputs';
import { BATCH_OUTPUT_FIELDS, SAMPLE_BATCH } from '../lib/samples';

export default defineCreate({
  key: 'create_batch',
  noun: 'Batch',
  display: {
    label: 'Create Batch',
    description: 'Creates a new batch that certificates can be issued into, using one of your certificate designs.',
  },
  operation: {
    inputFields: [
      { key: 'title', label: 'Title', required: true, helpText: 'The name of the batch, for example the course or event it is for.' },
      {
        key: 'design_id',
        label: 'Design',
        required: true,
        dynamic: 'design_list.id.name',
        helpText: 'The certificate design every certificate in this batch uses.',
      },
    ],
    perform: withClient(async (client, _z, bundle) =>
      client.createBatch({ title: text(bundle.inputData.title) ?? '', designId: text(bundle.inputData.design_id) ?? '' }),
    ),
    sample: SAMPLE_BATCH,
    outputFields: BATCH_OUTPUT_FIELDS,
  },
});
