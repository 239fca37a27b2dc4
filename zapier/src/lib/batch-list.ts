import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import type { BatchStatus } from '@certificate-service/sdk/core';
import { withClient } from './client';
import { BATCH_OUTPUT_FIELDS, SAMPLE_BATCH } from './samples';

/**
 * A hidden polling trigger that feeds a batch dropdown, one page per call. Zapier asks
 * for page 0, 1, 2... as the user scrolls; the service's next-page cursor is kept
 * between those calls with z.cursor (canPaginate).
 */
export function defineBatchListTrigger<const K extends string>(key: K, status: BatchStatus, label: string, description: string) {
  return defineTrigger({
    key,
    noun: 'Batch',
    display: { label, description, hidden: true },
    operation: {
      type: 'polling',
      canPaginate: true,
      perform: withClient(async (client, z: ZObject, bundle: Bundle) => {
        let cursor: string | undefined;
        if (bundle.meta?.page) {
          cursor = (await z.cursor.get()) || undefined;
          if (!cursor) return []; // the previous page was the last one
        }
        const page = await client.listBatches({ status, cursor });
        // Always overwrite: a stale cursor would serve the last page again.
        await z.cursor.set(page.nextCursor ?? '');
        return page.items;
      }),
      sample: SAMPLE_BATCH,
      outputFields: BATCH_OUTPUT_FIELDS,
    },
  });
}
