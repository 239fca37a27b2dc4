// Issue 44, item 3: a confirmed issue_certificates call reads each batch and its design once (the
// preview's design variables go to the issue), and reads the certificates again at issue time,
// once the run holds its emails: a certificate issued between the preview and the issue (another
// client, while the user is being asked) is skipped, never issued twice.
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, recipients, sandboxClient, type Harness, type User } from './harness';

jest.setTimeout(60_000);

let sb: Sandbox;
beforeAll(async () => void (sb = await createSandbox({ rateLimit: false, timeScale: 0.001 })));
afterAll(() => sb.close());
const open: Harness[] = [];
afterAll(() => Promise.all(open.map((h) => h.close())));

async function setup(user?: User) {
  const ws = sb.controls.createWorkspace();
  const client = sandboxClient(sb, ws.apiKey);
  const batch = await client.createBatch({ title: 'Reads', designId: 'design_classic' });
  const h = await connect({ client, user });
  open.push(h);
  sb.controls.resetCounters();
  return { ws, client, batch, h };
}

/** The sandbox's reads by route (writes left out), since the last reset. */
const reads = () => Object.fromEntries(Object.entries(sb.controls.counters().requests.byRoute).filter(([route]) => route.startsWith('GET ')));
const issuedEmails = (s: { ws: { workspaceId: string } }) => sb.controls.quota(s.ws.workspaceId).used;

test('confirmed by elicitation: the batch and its design read once, the certificates twice (preview, then at issue time)', async () => {
  const s = await setup('accept');
  const result = await s.h.call('issue_certificates', { batchId: s.batch.id, recipients: recipients(3), send: true });
  expect(result.data).toMatchObject({ done: true, counts: { issued: 3 } });
  expect(s.h.asked).toHaveLength(1);
  expect(reads()).toEqual({ 'GET /batches/:id': 1, 'GET /designs': 1, 'GET /batches/:id/recipients': 2 });
});

test('confirmed by token: the confirming call reads the batch and its design once, the certificates twice', async () => {
  const s = await setup();
  const args = { batchId: s.batch.id, recipients: recipients(3), send: true };
  const dry = await s.h.call('issue_certificates', args);
  expect(dry.data).toMatchObject({ done: false, reason: 'confirmationRequired' });
  // The dry run's reads stay with it (the token may come back to another process, minutes later).
  sb.controls.resetCounters();
  const done = await s.h.call('issue_certificates', { ...args, confirmationToken: dry.data.confirmationToken });
  expect(done.data).toMatchObject({ done: true, counts: { issued: 3 } });
  expect(reads()).toEqual({ 'GET /batches/:id': 1, 'GET /designs': 1, 'GET /batches/:id/recipients': 2 });
});

test('a certificate issued while the user is asked (after the preview read the batch) is skipped: the issue reads the certificates again', async () => {
  const s = await setup('accept');
  const list = recipients(3);
  s.h.client.setRequestHandler(ElicitRequestSchema, async () => {
    // Another client issues one of the emails after the preview's read, before the issue.
    await s.client.issueCertificate(s.batch.id, { name: list[1].name, email: list[1].email });
    return { action: 'accept', content: { confirm: true } };
  });
  const result = await s.h.call('issue_certificates', { batchId: s.batch.id, recipients: list, send: true });
  expect(result.data).toMatchObject({ done: true, counts: { issued: 2, skipped: 1 } });
  expect(issuedEmails(s)).toBe(3); // one certificate per email
  const inBatch = (await s.client.recipientsByEmail(s.batch.id)).get(list[1].email)!;
  expect(inBatch).toHaveLength(1);
});
