import { isNotFound, type Recipient } from '@certificate-service/sdk/core';
import { outputItem, RECIPIENT_OUTPUT_FIELDS } from './samples';

/** A search finds one item or none: the service's "not found" is an empty result, not an error. */
export async function findOne(lookup: () => Promise<Recipient>): Promise<Recipient[]> {
  try {
    return [outputItem(await lookup(), RECIPIENT_OUTPUT_FIELDS)];
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}
