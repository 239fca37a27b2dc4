import { defineBatchListTrigger } from '../lib/batch-list';

/** Powers the Batch dropdowns (`batch_list.id.title`). */
export default defineBatchListTrigger(
  'batch_list',
  'active',
  'New Batch',
  'Triggers when a new batch is created. Lists the active batches for the Batch dropdowns.',
);
