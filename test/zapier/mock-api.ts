// nock for the unit tests: the service API at ORIGIN, with the Bearer key required.
import nock from 'nock';
import { API_KEY, ORIGIN } from './helpers';

export * from './helpers';
export { setupNock } from '../support/nock';

/** The API, as nock sees it; every request must carry the Bearer key. */
export function api(): nock.Scope {
  return nock(ORIGIN, { reqheaders: { authorization: `Bearer ${API_KEY}` } });
}


