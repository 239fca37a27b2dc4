// Only its user drives the sandbox: a request under a Host it does not listen under (DNS
// rebinding) or from another site's page is refused with a 403 on every route (the page, the
// controls, the API, the viewer) before anything is done; curl, the SDK and the tests' clients
// (no Origin) are answered. Every answer is nosniff; the pages have a strict CSP. Plain HTTP
// here (node:http sends any Host); a real browser on another origin: page-chromium.e2e.test.ts.
import { createHash } from 'node:crypto';
import { createSandbox, DEMO_API_KEY, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';
import { readFlags } from '../../shared/sandbox/src/cli';
import { rawRequest } from '../support/net';

let sb: Sandbox;
let api: Api;
let port: number;
let batchId: string;
let shareToken: string;

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false });
  api = new Api(sb.baseUrl, sb.apiKey);
  port = Number(new URL(sb.url).port);
  batchId = (await api.post('/batches', { title: 'Kept', designId: 'design_modern' })).body.id;
  shareToken = (await api.post(`/batches/${batchId}/recipients`, { name: 'Ada Lovelace', email: 'ada@example.com' })).body.shareToken;
});
afterAll(() => sb.close());

const browser = { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const key = { Authorization: `Bearer ${DEMO_API_KEY}`, 'Content-Type': 'application/json' };
/** Every kind of route, and what each would change if it ran. */
const ROUTES: Array<{ name: string; method: string; path: string; headers?: Record<string, string>; body?: string }> = [
  { name: 'the page', method: 'GET', path: '/', headers: browser },
  { name: 'a control that wipes everything', method: 'POST', path: '/__sandbox/reset' },
  { name: 'a control that changes a setting', method: 'PUT', path: '/__sandbox/settings', headers: { 'Content-Type': 'application/json' }, body: '{"listShape":"bare"}' },
  { name: 'a control that reads', method: 'GET', path: '/__sandbox/deliveries' },
  { name: 'the API, writing with the demo key', method: 'POST', path: '/api/v1/batches', headers: key, body: '{"title":"Planted","designId":"design_modern"}' },
  { name: 'the API, reading with the demo key', method: 'GET', path: '/api/v1/batches', headers: key },
  { name: 'the viewer', method: 'GET', path: '', headers: browser },
];
const pathOf = (route: (typeof ROUTES)[number]) => route.path || `/v/${shareToken}`;

/** Nothing any route would change has changed. */
async function unchanged(): Promise<void> {
  expect(sb.controls.certificates(batchId)).toHaveLength(1);
  expect(sb.controls.settings().listShape).toBe('default');
  expect(sb.controls.counters().views).toBe(0);
  const batches = (await api.get('/batches')).body.data as Array<{ title: string }>;
  expect(batches.map((b) => b.title)).toEqual(['Kept']);
  sb.controls.resetCounters();
}

function expectRefused(answer: { status: number; headers: Record<string, unknown>; text: string }, header: string, value: string): void {
  expect(answer.status).toBe(403);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  expect(JSON.parse(answer.text)).toMatchObject({ error: 'FORBIDDEN', detail: { header, value } });
}

test.each(ROUTES.map((r) => [r.name, r] as const))('a foreign Host (DNS rebinding) is refused: %s', async (_, route) => {
  const rebound = `rebound.example:${port}`;
  const answer = await rawRequest(`${sb.url}${pathOf(route)}`, { method: route.method, headers: { ...route.headers, Host: rebound }, body: route.body });
  expectRefused(answer, 'Host', rebound);
  expect(JSON.parse(answer.text).message).toBe(
    `Host "${rebound}" is not this server (allowed: 127.0.0.1:${port}, localhost:${port}, [::1]:${port}). If that name is how you reach this sandbox, start it with --allow-host <name> (the allowedHosts option).`,
  );
  sb.controls.resetCounters();
  await unchanged();
});

test.each(ROUTES.map((r) => [r.name, r] as const))('a request from another site is refused (Origin, or Sec-Fetch-Site without it): %s', async (_, route) => {
  const url = `${sb.url}${pathOf(route)}`;
  const send = (headers: Record<string, string>) => rawRequest(url, { method: route.method, headers: { ...route.headers, ...headers }, body: route.body });
  for (const origin of ['https://evil.example', `http://127.0.0.1:${port + 1}`, 'null']) {
    expectRefused(await send({ Origin: origin }), 'Origin', origin);
  }
  // What a browser sends for an <img>, a no-cors fetch or a form, when it says where it comes from.
  expectRefused(await send({ 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' }), 'Sec-Fetch-Site', 'cross-site');
  expectRefused(await send({ 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'cors' }), 'Sec-Fetch-Site', 'same-site');
  sb.controls.resetCounters();
  await unchanged();
});

test('its own clients are answered: no Origin (curl, the SDK, a test client), its own Origin, each loopback name', async () => {
  const settings = `${sb.url}/__sandbox/settings`;
  expect((await rawRequest(settings)).status).toBe(200);
  expect((await rawRequest(settings, { headers: { Host: `localhost:${port}` } })).status).toBe(200);
  expect((await rawRequest(settings, { headers: { Host: `[::1]:${port}` } })).status).toBe(200);
  expect((await rawRequest(settings, { headers: { Origin: sb.url, 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'cors' } })).status).toBe(200);
  expect((await rawRequest(`${sb.url}/api/v1/auth`, { method: 'POST', headers: { ...key, Origin: sb.url } })).status).toBe(200);
  // A link to the page followed from another site (a docs page, a chat): a top-level GET navigation.
  const followed = await rawRequest(`${sb.url}/`, { headers: { ...browser, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' } });
  expect(followed.status).toBe(200);
  expect(followed.text).toContain('<h1>Certificate Service sandbox</h1>');
  // A POST from the sandbox's own origin (a browser sends Origin on every POST) goes through.
  expect((await rawRequest(`${sb.url}/__sandbox/counters/reset`, { method: 'POST', headers: { Origin: sb.url } })).status).toBe(204);
});

test('a preflight from another origin gets no CORS permission: a page elsewhere cannot send the demo key', async () => {
  const preflight = await rawRequest(`${sb.baseUrl}/batches`, {
    method: 'OPTIONS',
    headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' },
  });
  expect(preflight.status).toBe(403);
  expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  // Nor does any answer of the API carry one.
  const answer = await rawRequest(`${sb.baseUrl}/batches`, { headers: key });
  expect(answer.status).toBe(200);
  expect(Object.keys(answer.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
});

describe('the names it answers: the loopback names, its --host, and --allow-host', () => {
  test('a sandbox on another address answers that name (127.0.0.2: not one of the loopback names it always answers)', async () => {
    const other = await createSandbox({ host: '127.0.0.2', rateLimit: false });
    try {
      expect(other.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
      expect((await rawRequest(`${other.url}/__sandbox/settings`)).status).toBe(200);
      const otherPort = new URL(other.url).port;
      expect((await rawRequest(`${other.url}/__sandbox/settings`, { headers: { Host: `127.0.0.3:${otherPort}` } })).status).toBe(403);
    } finally {
      await other.close();
    }
  });

  test('allowedHosts (--allow-host) adds a name, e.g. the one a container reaches it by', async () => {
    const docker = await createSandbox({ allowedHosts: ['host.docker.internal'], rateLimit: false });
    try {
      const dockerPort = new URL(docker.url).port;
      const settings = `${docker.url}/__sandbox/settings`;
      expect((await rawRequest(settings, { headers: { Host: `host.docker.internal:${dockerPort}` } })).status).toBe(200);
      expect((await rawRequest(settings, { headers: { Host: `host.docker.internal:${dockerPort}`, Origin: `http://host.docker.internal:${dockerPort}` } })).status).toBe(200);
      expect((await rawRequest(settings, { headers: { Host: `other.internal:${dockerPort}` } })).status).toBe(403);
    } finally {
      await docker.close();
    }
    expect(readFlags(['--allow-host', 'host.docker.internal', '--allow-host=box.lan'])).toMatchObject({ sandbox: { allowedHosts: ['host.docker.internal', 'box.lan'] } });
  });

  test.each([[['http://box.lan']], [['box.lan:4010']], ['box.lan']])('allowedHosts %j is refused, naming the field', async (allowedHosts) => {
    await expect(createSandbox({ allowedHosts: allowedHosts as string[] })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', detail: { field: 'allowedHosts' } });
  });
});

describe('headers: nosniff on every answer; the pages a strict policy', () => {
  test('every JSON answer, empty answer and HTML answer is nosniff', async () => {
    sb.controls.injectFaults({ kind: '502', match: { method: 'GET', path: '/designs' }, count: 1 });
    const answers = await Promise.all([
      rawRequest(`${sb.baseUrl}/batches`, { headers: key }), // 200
      rawRequest(`${sb.baseUrl}/batches`), // 401
      rawRequest(`${sb.baseUrl}/designs`, { headers: key }), // the injected 502, HTML
      rawRequest(`${sb.url}/nowhere`), // 404
      rawRequest(`${sb.url}/__sandbox/counters`), // a control
      rawRequest(`${sb.url}/__sandbox/counters/reset`, { method: 'POST' }), // 204
      rawRequest(`${sb.url}/`, { headers: browser }), // the page
      rawRequest(`${sb.url}/v/${shareToken}`, { headers: browser }), // the viewer
      rawRequest(`${sb.url}/v/nope`, { headers: browser }), // the viewer's 404
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 401, 502, 404, 200, 204, 200, 200, 404]);
    for (const a of answers) expect(a.headers['x-content-type-options']).toBe('nosniff');
  });

  test.each([
    ['the page', () => `${sb.url}/`],
    ["a batch's page", () => `${sb.url}/?batch=${batchId}`],
    ['a bad request', () => `${sb.url}/?page=0`],
    ['the viewer', () => `${sb.url}/v/${shareToken}`],
    ["the viewer's 404", () => `${sb.url}/v/nope`],
  ])('%s: no script, its own stylesheet by hash, no frame around it, no Referer to another site', async (_, url) => {
    const page = await rawRequest(url(), { headers: browser });
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.text)![1];
    const hash = createHash('sha256').update(style).digest('base64');
    expect(page.headers['content-security-policy']).toBe(`default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('same-origin');
    expect(page.text).not.toMatch(/<script|\son\w+=|style="/i); // nothing the policy would block
    sb.controls.resetCounters();
  });
});
