// Authentication: the connection test, the connection label, the Bearer middleware
// and what a bad key or base URL looks like to the user.
import nock from 'nock';
import { API_KEY, BASE_URL, ORIGIN, api, app, appTester, caught, setupNock } from './mock-api';

setupNock();

const test = (authData: Record<string, string>) => appTester(app.authentication.test, { authData });

describe('authentication', () => {
  it('is custom auth with an API key (password) and a base URL, labelled by the workspace username', () => {
    expect(app.authentication.type).toBe('custom');
    const [apiKey, baseUrl] = app.authentication.fields;
    expect(apiKey).toMatchObject({ key: 'apiKey', type: 'password', required: true });
    expect(apiKey.helpText).toMatch(/API keys/);
    expect(apiKey.helpText).toMatch(/\]\(https:\/\/[^)]+\)/); // a docs link
    expect(baseUrl).toMatchObject({ key: 'baseUrl', required: true });
    expect(baseUrl.helpText).toMatch(/\/api\/v1/);
    expect(app.authentication.connectionLabel).toBe('{{username}}');
  });

  it('test calls POST /auth with the Bearer key and returns the workspace', async () => {
    api()
      .post('/api/v1/auth')
      .matchHeader('user-agent', /^certificate-service-zapier\//)
      .reply(200, { workspaceId: 'ws_1', username: 'Acme Academy' });
    await expect(test({ apiKey: API_KEY, baseUrl: BASE_URL })).resolves.toEqual({ workspaceId: 'ws_1', username: 'Acme Academy' });
  });

  it('normalises the base URL through the core (adds /api/v1, drops trailing slashes)', async () => {
    api().post('/api/v1/auth').reply(200, { data: { workspaceId: 'ws_1', username: 'Acme' } });
    await expect(test({ apiKey: API_KEY, baseUrl: `${ORIGIN}//` })).resolves.toMatchObject({ username: 'Acme' });
  });

  it.each([
    ['INVALID_API_KEY', /Copy the whole key again/],
    ['EXPIRED_API_KEY', /Make a new key/],
    ['MISSING_API_KEY', /Keys are made under/],
  ])('a 401 %s fails the test with a clear message, code and status 401', async (code, text) => {
    api().post('/api/v1/auth').reply(401, { error: code, message: 'nope', detail: {} });
    const error = await caught(test({ apiKey: API_KEY, baseUrl: BASE_URL }));
    expect(error.name).toBe('AppError');
    expect(error.json).toMatchObject({ code, status: 401 });
    expect(String(error.json?.message)).toMatch(text);
    expect(String(error.json?.message)).toMatch(/API keys/);
    expect(error.message).not.toContain(API_KEY);
  });

  it.each([
    ['http://certs.example.com/api/v1', /https/],
    ['not a url', /not a valid URL/],
    ['', /required/],
  ])('rejects the base URL %j before sending anything', async (baseUrl, text) => {
    const error = await caught(test({ apiKey: API_KEY, baseUrl }));
    expect(error.json).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(String(error.json?.message)).toMatch(text);
    expect(String(error.json?.message)).toMatch(/baseUrl|API Base URL/);
  });

  it('a 5xx on the test is retried like a GET (POST /auth changes nothing), then an error with the status', async () => {
    const scope = api().post('/api/v1/auth').times(3).reply(503, 'upstream down');
    const error = await caught(test({ apiKey: API_KEY, baseUrl: BASE_URL }));
    expect(scope.isDone()).toBe(true); // 1 try + ZAPIER_RETRY.maxRetries
    expect(error.name).toBe('AppError');
    expect(error.json).toMatchObject({ status: 503 });
  });
});

describe('beforeRequest', () => {
  const [addBearer] = app.beforeRequest;

  it('adds the Bearer key only for the configured API origin', () => {
    const bundle = { authData: { apiKey: ` ${API_KEY} `, baseUrl: BASE_URL } };
    expect(addBearer({ url: `${BASE_URL}/batches`, headers: {} }, {}, bundle).headers?.Authorization).toBe(`Bearer ${API_KEY}`);
    expect(addBearer({ url: 'https://elsewhere.example.com/x', headers: {} }, {}, bundle).headers?.Authorization).toBeUndefined();
    expect(addBearer({ url: `${BASE_URL}/x`, headers: {} }, {}, { authData: { apiKey: API_KEY, baseUrl: 'nonsense' } }).headers?.Authorization).toBeUndefined();
  });

  it('sends no Authorization header when there is no key (the service answers MISSING_API_KEY)', async () => {
    nock(ORIGIN, { badheaders: ['authorization'] })
      .post('/api/v1/auth')
      .reply(401, { error: 'MISSING_API_KEY', message: 'No key', detail: {} });
    const error = await caught(test({ apiKey: '', baseUrl: BASE_URL }));
    expect(error.json).toMatchObject({ code: 'MISSING_API_KEY', status: 401 });
  });
});
