// issueMany's onProgress (what the CLI's progress bar is driven by), and the bar itself.
import { createClient } from '@certificate-service/sdk';
import { progressBar } from '../../shared/cli/src/progress';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false });
});
afterAll(() => sb.close());

test('onProgress: once when the calls are planned (skipped items already done), then after each call, ending at the total', async () => {
  const ws = sb.controls.createWorkspace({ quota: 1_000 });
  const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
  const batchId = (await client.createBatch({ title: 'Progress', designId: 'design_classic' })).id;
  const person = (i: number) => ({ batchId, name: `P ${i}`, email: `p${i}@example.com` });
  await client.issueMany(Array.from({ length: 20 }, (_, i) => person(i)));

  // 20 already in the batch, 225 new, 5 repeats of new ones, 1 invalid.
  const items = [...Array.from({ length: 245 }, (_, i) => person(i)), ...[30, 31, 32, 33, 34].map(person), { batchId, name: 'Bad', email: 'nope' }];
  const calls: Array<[number, number]> = [];
  const out = await client.issueMany(items, { skipExisting: true, onProgress: (done, total) => calls.push([done, total]) });
  expect(calls).toEqual([
    [21, 251], // 20 skipped + 1 invalid
    [121, 251],
    [221, 251],
    [246, 251],
    [251, 251], // the repeats take their first item's outcome
  ]);
  expect(out.filter((o) => o.kind === 'issued')).toHaveLength(225);
  expect(out.filter((o) => o.kind === 'skipped')).toHaveLength(25);
});

test('the bar: rows done, the rate limit left, and a countdown while the client waits', () => {
  const written: string[] = [];
  const stream = { columns: 0, write: (text: string) => written.push(text) };
  let until: number | undefined;
  const rate: { remaining?: number } = {};
  const bar = progressBar(stream, { rate: () => rate, waitingUntil: () => until }, () => 1_000_000);
  bar.update(0, 250);
  rate.remaining = 0;
  until = 1_002_500;
  bar.update(0, 250);
  until = undefined;
  rate.remaining = 118;
  bar.update(125, 250);
  bar.stop();
  expect(written).toEqual([
    '\r[........................] 0/250\x1b[K',
    '\r[........................] 0/250 · rate limit: waiting 3 s\x1b[K',
    '\r[############............] 125/250 · rate limit: 118 left\x1b[K',
    '\r[############............] 125/250 · rate limit: 118 left\x1b[K\n',
  ]);
});

test('while a call is in flight its seconds count up, so a slow call never sits still', () => {
  const written: string[] = [];
  let t = 1_000_000;
  const bar = progressBar({ columns: 0, write: (text: string) => written.push(text) }, { rate: () => ({}), waitingUntil: () => undefined }, () => t);
  bar.update(0, 350);
  bar.doing('sending 100 rows');
  t += 7_400;
  bar.update(0, 350); // what the timer does every 250 ms
  bar.stop();
  expect(written.slice(1, 3)).toEqual(['\r[........................] 0/350 · sending 100 rows 0 s\x1b[K', '\r[........................] 0/350 · sending 100 rows 7 s\x1b[K']);
});

test('a message clears the bar\'s line first and the bar is drawn again below it; after stop nothing is drawn', () => {
  const written: string[] = [];
  const bar = progressBar({ columns: 0, write: (text: string) => written.push(text) }, { rate: () => ({}), waitingUntil: () => undefined }, () => 0);
  bar.update(3, 10);
  bar.say('line 4: a message\n');
  bar.stop('stopping');
  bar.update(10, 10);
  bar.say('after\n');
  expect(written).toEqual([
    '\r[#######.................] 3/10\x1b[K',
    '\r\x1b[Kline 4: a message\n',
    '\r[#######.................] 3/10\x1b[K',
    '\r[#######.................] 3/10 · stopping\x1b[K\n',
    'after\n',
  ]);
});
