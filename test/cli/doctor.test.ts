// `certsvc doctor` (in this process) against the sandbox: exit 0 in every list shape the
// connectors read, exit 1 naming what came back in a shape no code knows.
import { createSandbox, KNOWN_LIST_SHAPES, UNKNOWN_LIST_SHAPES, type Sandbox } from '@certificate-service/sandbox';
import { runCli } from '../support/cli';

jest.setTimeout(60_000);

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ timeScale: 0.001 });
  // Something in every list: a batch with a certificate, and a subscription.
  const api = (path: string, body: unknown) =>
    fetch(`${sb.baseUrl}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${sb.apiKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ id: string }>);
  const batch = await api('/batches', { title: 'Doctor', designId: 'design_classic' });
  await api(`/batches/${batch.id}/recipients`, { name: 'Ada', email: 'ada@example.com' });
  await api('/webhooks/subscriptions', { url: 'http://127.0.0.1:9/hook', events: ['certificate.issued'] });
}, 120_000);
afterAll(() => sb.close());
afterEach(() => sb.controls.setListShape('default'));

const doctor = () => runCli(['doctor'], { CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: sb.apiKey });

test.each(KNOWN_LIST_SHAPES)('list shape %s: every answer read, exit 0', async (shape) => {
  sb.controls.setListShape(shape);
  sb.controls.resetCounters();
  const run = await doctor();
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout).toMatch(/^POST \/auth {2}200 {2}RateLimit limit=120 remaining=\d+ reset=\d+\n {2}fields: all 2 the connectors read are present/);
  for (const endpoint of ['GET /batches', 'GET /designs', 'GET /batches/{batchId}/recipients', 'GET /webhooks/subscriptions']) {
    expect(run.stdout).toContain(`${endpoint}  200`);
  }
  const wrapper = { default: 'data', bare: '(array)', items: 'items', results: 'results', named: 'batches', pagination: 'data', meta: 'data', has_more: 'data' }[shape];
  expect(run.stdout).toContain(`list: wrapper ${wrapper}`);
  expect(run.stdout).toContain('fields: all 13 the connectors read are present');
  expect(run.stdout).toMatch(/Every answer has a shape the connectors read\.\n$/);
  // Read-only: no POST but /auth, no PATCH or DELETE.
  const writes = Object.entries(sb.controls.counters().requests.byRoute).filter(([r]) => !r.startsWith('GET') && r !== 'POST /auth');
  expect(writes).toEqual([]);
  expect(sb.controls.counters().requests.total).toBe(6); // auth, batches, designs, first batch, its certificates, subscriptions
});

test.each(UNKNOWN_LIST_SHAPES)('list shape no code knows (%s): exit 1, naming what came back', async (shape) => {
  sb.controls.setListShape(shape);
  const run = await doctor();
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(/GET \/batches {2}200 .*\n {2}FAILED \(UNEXPECTED_RESPONSE\): GET \/batches answered 200/);
  expect(run.stdout).toMatch(shape === 'html_page' ? /\(text\/html\) with an HTML page/ : shape === 'entries' ? /keys "entries", "continuation"/ : /keys "payload"/);
  expect(run.stdout).toMatch(/\n4 checks failed: the connectors cannot rely on these answers\.\n$/);
  expect(run.stdout + run.stderr).not.toContain(sb.apiKey);
});
