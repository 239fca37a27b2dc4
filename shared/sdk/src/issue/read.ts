import type { Api } from '../client/api';
import { recipientsByEmail } from '../client/recipients';
import { CertificateServiceError } from '../errors';
import { getDesignVariables } from '../variables';
import { noReads, type BatchReads } from './plan';

export interface ReadOptions {
  /** Read each batch's certificates (100 a page) to skip the emails it already has. */
  skipExisting: boolean;
  /** The batches whose design's variables are read, to check required ones before any write. */
  designVariables: (batchId: string) => boolean;
  signal?: AbortSignal;
}

/**
 * Step 2: what the plan needs to know of each batch before anything is sent, each batch read
 * once. A read that fails is kept as the batch's failure: its items are not sent (issuing into a
 * batch read in part could issue twice), and the other batches go on.
 */
export async function readBatches(api: Api, batchIds: readonly string[], options: ReadOptions): Promise<BatchReads> {
  const reads = noReads();
  for (const batchId of batchIds) {
    if (options.signal?.aborted) break;
    try {
      if (options.designVariables(batchId)) reads.variables.set(batchId, await getDesignVariables(api, batchId));
    } catch (error) {
      if (!(error instanceof CertificateServiceError)) throw error;
      reads.failed.set(batchId, { error, purpose: 'variables' });
      continue;
    }
    try {
      if (options.skipExisting) reads.existing.set(batchId, await recipientsByEmail(api, batchId));
    } catch (error) {
      if (!(error instanceof CertificateServiceError)) throw error;
      reads.failed.set(batchId, { error, purpose: 'skip-existing' });
    }
  }
  return reads;
}
