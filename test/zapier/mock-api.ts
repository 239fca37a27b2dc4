// nock for the unit tests: the service API at ORIGIN, with the Bearer key required.
import nock from 'nock';
import type { DesignVariable } from '@certificate-service/sdk/core';
import { designCacheKey } from '../../zapier/src/lib/design-check';
import { API_KEY, ORIGIN, appTester, authData } from './helpers';

export * from './helpers';
export { setupNock } from '../support/nock';

/** The API, as nock sees it; every request must carry the Bearer key. */
export function api(): nock.Scope {
  return nock(ORIGIN, { reqheaders: { authorization: `Bearer ${API_KEY}` } });
}

/** appTester's z.cache (core's local stand-in), kept between runs of one test file. */
export function zcache(): Record<string, string> {
  return (appTester as unknown as { zcacheTestObj: Record<string, string> }).zcacheTestObj;
}

/** An empty z.cache: nothing an earlier test left (a design read, a lost-answer marker) counts. */
export function freshCache(): void {
  (appTester as unknown as { zcacheTestObj: Record<string, string> }).zcacheTestObj = {};
}

/**
 * As if a run in the last five minutes had read these batches' designs: the creates' design
 * check (issue 33) is then served from z.cache (appTester's, kept between runs), so tests of
 * other mechanics see only their own requests. test/zapier/design-check.test.ts tests the reads.
 */
export function designCached(batchIds: string[] = ['batch_1'], variables: DesignVariable[] = []): void {
  for (const id of batchIds) zcache()[designCacheKey(authData, id)] = JSON.stringify(variables);
}
