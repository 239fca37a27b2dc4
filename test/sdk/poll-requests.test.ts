// List requests per poll, measured: the core's pollCertificates with its defaults (pages of
// 100, a budget of 10 requests, a 7-day window) against the sandbox in each list model, for a
// quiet poll, a few new certificates, a flood, a long list, and an expired cursor. Every
// certificate is emitted once in each scenario. The figures are kept in poll-requests.json,
// which the READMEs quote; UPDATE_POLL_REQUESTS=1 rewrites it from this run.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PollEvent } from '@certificate-service/sdk/core';
import { PollWorld, SECOND, type Model } from '../support/poll-world';

jest.setTimeout(60_000);

const FILE = join(__dirname, 'poll-requests.json');

let world: PollWorld;
beforeAll(async () => {
  world = await PollWorld.start();
});
afterAll(() => world.close());

/** Issues `n` certificates in bulk calls of up to 100, a second apart (each call one createdAt). */
async function issue(n: number, send: boolean): Promise<void> {
  for (let left = n; left > 0; left -= 100) {
    world.tick(SECOND);
    await world.issue(Math.min(100, left), { send });
  }
  world.settleMail();
}

interface Row {
  model: string;
  event: PollEvent;
  scenario: string;
  /** Requests of each poll, from the first. */
  requests: number[];
}

const MODELS: [string, Model][] = [
  ['newest-first', { order: 'newest-first', precision: 'ms', cursorKind: 'opaque', expiry: false }],
  ['newest-first, to the second, offset cursors', { order: 'newest-first', precision: 's', cursorKind: 'offset', expiry: false }],
  ['oldest-first', { order: 'oldest-first', precision: 'ms', cursorKind: 'opaque', expiry: false }],
  ['oldest-first, offset cursors', { order: 'oldest-first', precision: 'ms', cursorKind: 'offset', expiry: false }],
  ['undetectable', { order: 'undetectable', precision: 'ms', cursorKind: 'opaque', expiry: false }],
];

/**
 * A batch of `existing`, a first poll, then each step (new certificates, then a poll a minute
 * later) until every new one is emitted: the requests of every poll, and a check that each new
 * one came once.
 */
async function measure(model: Model, event: PollEvent, existing: number, fresh: number[]): Promise<number[]> {
  await world.begin(model);
  const send = event === 'sent';
  await issue(existing, send);
  const poller = world.core(event);
  world.tick(60 * SECOND);
  const requests = [(await poller.poll()).requests];
  const emitted: string[] = [];
  for (const n of fresh) {
    const before = new Set(world.present(event));
    await issue(n, send);
    const expected = [...world.present(event)].filter((k) => !before.has(k));
    // Polls a minute apart until all of these are out (a flood takes more than one; none new, one poll).
    for (let polls = 0; polls === 0 || expected.some((k) => !emitted.includes(k)); polls++) {
      if (polls > 20) throw new Error('the new certificates were not all emitted');
      world.tick(60 * SECOND);
      const out = await poller.poll();
      requests.push(out.requests);
      emitted.push(...out.emitted.map((e) => e.id));
    }
  }
  expect(new Set(emitted).size).toBe(emitted.length);
  expect(emitted.length).toBe(fresh.reduce((a, b) => a + b, 0));
  return requests;
}

const rows: Row[] = [];

describe.each(MODELS)('%s', (name, model) => {
  test.each<PollEvent>(['issued', 'sent'])('%s: first poll, then 0, 1, 150 and 1,200 new', async (event) => {
    const requests = await measure(model, event, 250, [0, 1, 150, 1200]);
    rows.push({ model: name, event, scenario: '250 in the batch; first poll, then 0, 1, 150, 1,200 new', requests });
  });
});

test.each<[string, Model]>([MODELS[0], MODELS[2], MODELS[4]])('%s, 2,500 in the batch: a quiet poll', async (name, model) => {
  await world.begin(model);
  await issue(2500, false);
  const poller = world.core('issued');
  const requests: number[] = [];
  for (let i = 0; i < 4; i++) {
    world.tick(60 * SECOND);
    requests.push((await poller.poll()).requests);
  }
  rows.push({ model: name, event: 'issued', scenario: '2,500 in the batch; first poll, then quiet polls', requests });
});

test('oldest-first, cursors that expire after 30 s, polls a minute apart: each poll restarts from the top', async () => {
  await world.begin({ order: 'oldest-first', precision: 'ms', cursorKind: 'opaque', expiry: { afterMs: 30_000 } });
  await issue(250, false);
  const poller = world.core('issued');
  world.tick(60 * SECOND);
  const requests = [(await poller.poll()).requests];
  const [fresh] = await world.issue(1);
  world.tick(60 * SECOND);
  const out = await poller.poll();
  requests.push(out.requests);
  expect(out.emitted.map((e) => e.id)).toEqual([fresh.id]);
  expect(out.notes.join(' ')).toMatch(/refused a saved list cursor .*expired.*from the top/);
  rows.push({ model: 'oldest-first, cursors expire after 30 s', event: 'issued', scenario: '250 in the batch; first poll, then 1 new a minute later', requests });
});

afterAll(() => {
  const measured = JSON.stringify(rows.sort((a, b) => `${a.model}${a.event}${a.scenario}`.localeCompare(`${b.model}${b.event}${b.scenario}`)), null, 2) + '\n';
  if (process.env.UPDATE_POLL_REQUESTS) writeFileSync(FILE, measured);
  // The figures the READMEs quote are these: a change in the poll's cost shows up here.
  else expect(measured).toBe(readFileSync(FILE, 'utf8'));
});
