// One nock discipline for every unit-test layer: no real network, and every mocked
// request must have been made by the end of each test.
import nock from 'nock';

export function setupNock(): void {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending).toEqual([]);
  });
  afterAll(() => nock.enableNetConnect());
}
