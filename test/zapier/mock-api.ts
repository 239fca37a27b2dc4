// nock for the unit tests: the service API at ORIGIN, with the Bearer key required.
import nock from 'nock';
import { API_KEY, ORIGIN } from './helpers';

export * from './helpers';

/** The API, as nock sees it; every request must carry the Bearer key. */
export function api(): nock.Scope {
  return nock(ORIGIN, { reqheaders: { authorization: `Bearer ${API_KEY}` } });
}

export function setupNock(): void {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending).toEqual([]);
  });
  afterAll(() => nock.enableNetConnect());
}

