import { defineBatchListTrigger } from '../lib/batch-list';

/** Powers the dropdown of Unarchive Batch, which needs the archived batches. */
export default defineBatchListTrigger(
  'archived_batch_list',
  'archived',
  'New Archived Batch',
  'Triggers when a batch is archived. Lists the archived batches for the dropdown of Unarchive Batch.',
);
