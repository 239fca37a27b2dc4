import { defineBatchListTrigger } from '../lib/batch-list';

/** Powers the Batch dropdowns (`batch_list.id.title`). */
export default defineBatchListTrigger('batch_list', 'active', 'New Batch');
