// A receiver may echo a secret in its answer (its config, the request it got, a debug page):
// the delivery log (controls.deliveries(), GET /__sandbox/deliveries) and the page keep the
// start of each answer without any secret the sandbox knows: every subscription's signing
// secret, current and previous, and every API key, in any workspace. The SDK's redaction
// (redact, SecretSet) does it, so the shapes it knows (`wh_sec_…`, `Bearer …`) go too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox, DEMO_API_KEY, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';
import { getHtml } from './page-world';

let sb: Sandbox;
let api: Api;
let receiver: http.Server;
let url: string;
/** What the receiver answers next, one per delivery. */
let answer = '';

let subscription: string;
const secrets: Record<string, string> = {};

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, timeScale: 0.001 });
  api = new Api(sb.baseUrl, sb.apiKey);
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'text/plain' }).end(answer));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const created = (await api.post('/webhooks/subscriptions', { url, events: ['certificate.issued'] })).body;
  subscription = created.id;
  secrets.previous = created.secret;
  secrets.current = (await api.post(`/webhooks/subscriptions/${subscription}/rotate-secret`)).body.secret;
  // Another workspace: its key, and its subscription's secret.
  const other = sb.controls.createWorkspace({ username: 'Other' });
  secrets.otherKey = other.apiKey;
  secrets.otherSecret = (await new Api(sb.baseUrl, other.apiKey).post('/webhooks/subscriptions', { url: 'http://127.0.0.1:9/unused', events: ['certificate.sent'] })).body.secret;
  secrets.demoKey = DEMO_API_KEY;
  expect(Object.values(secrets).every((s) => s.length > 20)).toBe(true);
});
afterAll(async () => {
  await sb.close();
  await new Promise((resolve) => receiver.close(resolve));
});

/** What the log kept of the answer to one test delivery. */
async function kept(body: string): Promise<string> {
  answer = body;
  const before = sb.controls.deliveries().length;
  expect((await api.post(`/webhooks/subscriptions/${subscription}/test`)).status).toBe(202);
  const log = await sb.controls.waitForDeliveries((l) => l.length === before + 1);
  expect(log[before]).toMatchObject({ status: 200, outcome: 'succeeded' });
  return log[before].answer ?? '';
}

/** Neither a secret nor a telling part of one (its first or last 12 characters). */
function expectNoSecret(text: string): void {
  for (const [name, secret] of Object.entries(secrets)) {
    for (const part of [secret, secret.slice(0, 12), secret.slice(-12)]) {
      if (text.includes(part)) throw new Error(`${name} (or part of it: "${part}") is in: ${text}`);
    }
  }
}

test.each([
  ['its current signing secret', () => `verified with ${secrets.current}`, () => 'verified with [redacted]'],
  ['its previous signing secret (rotated, still signing)', () => `old: ${secrets.previous}`, () => 'old: [redacted]'],
  ["another workspace's signing secret", () => `${secrets.otherSecret}!`, () => '[redacted]!'],
  ['the demo key and another workspace\'s key', () => `keys ${secrets.demoKey} ${secrets.otherKey}`, () => 'keys [redacted] [redacted]'],
  ['all of them in a JSON answer', () => JSON.stringify({ env: { SECRET: secrets.current, KEY: secrets.otherKey } }), () => '{"env":{"SECRET":"[redacted]","KEY":"[redacted]"}}'],
  ['a header echoed back', () => `Authorization: Bearer ${secrets.otherKey}`, () => 'Authorization: Bearer [redacted]'],
  // A secret the log's 200-character cut falls inside: redacted whole before the cut, so no start of it is kept.
  ['a key across the 200th character', () => `${'x'.repeat(180)}${secrets.otherKey}${'y'.repeat(50)}`, () => `${'x'.repeat(180)}[redacted]${'y'.repeat(10)}`],
  ['a secret across the 200th character', () => `${'x'.repeat(190)}${secrets.current}`, () => `${'x'.repeat(190)}[redacted]`],
  // Shorter redactions before it pull a secret from past the cut into the first 200 characters.
  ['a key pulled inside the cut by redactions before it', () => `${`${secrets.otherKey} `.repeat(5)}${secrets.demoKey}`, () => `${'[redacted] '.repeat(5)}[redacted]`],
  // Part of a signing secret: the `wh_sec_` shape takes it.
  ['the start of a signing secret', () => `prefix ${secrets.current.slice(0, 20)} end`, () => 'prefix [redacted] end'],
])('%s: not kept', async (_, body, expected) => {
  const stored = await kept(body());
  expect(stored).toBe(expected());
  expectNoSecret(stored);
});

test('nor shown: not by the controls over HTTP, not by the page', async () => {
  await kept(`all: ${Object.values(secrets).join(' ')}`);
  const log = await (await fetch(`${sb.url}/__sandbox/deliveries`)).text();
  expect(log).toContain('all: [redacted] [redacted]');
  expectNoSecret(log);
  const page = await getHtml(`${sb.url}/`);
  expect(page.html).toContain('<q>all: [redacted] [redacted]');
  expectNoSecret(page.html);
});

test('an answer without a secret is kept as it came, up to 200 characters', async () => {
  expect(await kept('ok')).toBe('ok');
  const long = 'abcdefghij'.repeat(30);
  expect(await kept(long)).toBe(long.slice(0, 200));
});
