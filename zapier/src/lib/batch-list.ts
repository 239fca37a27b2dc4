import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import type { BatchStatus } from '@certificate-service/sdk/core';
import { withClient } from './client';
import { dropdownPage } from './dropdown-page';
import { BATCH_OUTPUT_FIELDS, SAMPLE_BATCH } from './samples';

/** A hidden polling trigger that feeds a batch dropdown, one page per call (see dropdownPage). */
export function defineBatchListTrigger<const K extends string>(key: K, status: BatchStatus, label: string, description: string) {
  return defineTrigger({
    key,
    noun: 'Batch',
    display: { label, description, hidden: true },
    operation: {
      type: 'polling',
      canPaginate: true,
      perform: withClient(async (client, z: ZObject, bundle: Bundle) =>
        dropdownPage(z, bundle, (cursor) => client.listBatches({ status, cursor })),
      ),
      sample: SAMPLE_BATCH,
      outputFields: BATCH_OUTPUT_FIELDS,
    },
  });
}
