// Property: polls neither miss nor repeat. Random interleavings of issue (single and bulk),
// send, fail (a bounce), delete, the mail provider, the clock and polls, against every list
// model the sandbox offers (order, timestamp precision, cursor kind and lifetime), for each
// event, through the core (small pages and budgets, so walks span polls), the n8n Poll
// Trigger's poll() and Zapier's perform with a model of its dedupe by id.
//
// After the operations the mail is settled and polls run until two walks have finished. Then:
// - nothing is emitted twice, nothing that never happened, nothing that existed before the
//   first poll (the trigger's activation);
// - every occurrence the service still holds at the end is emitted exactly once, except the
//   documented misses: a send outside the window (sent more than windowDays after its issue),
//   and what happened in the very second of activation, or before the first walk was done,
//   when that walk spanned polls (the list cannot say which came first);
// - every poll returns newest first.
// Occurrences gone by the end (deleted, sent again, re-queued) may be missed, never repeated.
//
// Then recovery (recoverEvents) from the second of activation, into a store holding what the
// poll emitted: it runs nothing the poll emitted, nothing twice, nothing that never happened
// or is out of its window, and every occurrence still held in its window (issued/sent: at or
// after `since`, whatever the issue date; failed: issued at or after `since` minus 7 days)
// that the poll did not emit, the poll's documented misses included.
//
// Runs once with a fixed seed and once with a fresh one, printed on failure:
// POLL_PROPERTY_SEED=<seed> replays it.
import fc from 'fast-check';
import type { PollEvent } from '@certificate-service/sdk/core';
import { DAY, PollWorld, SECOND, type Model, type Poller } from '../support/poll-world';

jest.setTimeout(120_000);

const WINDOW_DAYS = 7;
const FIXED_SEED = 20261125;

let world: PollWorld;
beforeAll(async () => {
  world = await PollWorld.start();
});
afterAll(() => world.close());

type Host = { kind: 'core'; pageSize: number; budget: number; remember: boolean } | { kind: 'n8n' } | { kind: 'zapier'; flakyCache: boolean };

type Op =
  | { k: 'issue'; n: number; bounce: boolean; send: boolean }
  | { k: 'send'; pick: number }
  | { k: 'delete'; pick: number; count: number; newest: boolean }
  | { k: 'settle' }
  | { k: 'tick'; ms: number }
  | { k: 'poll' };

// Weighted towards the models that break naive polls: offset cursors, and cursors that live
// long enough for a shifted page to be read (an expired one restarts the walk, which hides a shift).
const model: fc.Arbitrary<Model> = fc.record({
  order: fc.constantFrom('newest-first', 'oldest-first', 'undetectable'),
  precision: fc.constantFrom('ms', 's'),
  cursorKind: fc.constantFrom('opaque', 'offset', 'offset'),
  expiry: fc.constantFrom(false as const, false as const, { afterMs: 45_000 }, { afterWrites: 3 }),
});

const event = fc.constantFrom<PollEvent>('issued', 'sent', 'failed');

function ops(maxBulk: number, length: number): fc.Arbitrary<Op[]> {
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ k: fc.constant('issue' as const), n: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: maxBulk })), bounce: fc.boolean(), send: fc.boolean() }) },
    { weight: 3, arbitrary: fc.record({ k: fc.constant('send' as const), pick: fc.nat() }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('delete' as const), pick: fc.nat(), count: fc.integer({ min: 1, max: 4 }), newest: fc.boolean() }) },
    { weight: 2, arbitrary: fc.constant({ k: 'settle' as const }) },
    {
      weight: 3,
      arbitrary: fc.record({
        k: fc.constant('tick' as const),
        // Same instant, same second, a few seconds, past a cursor's lifetime, past the window.
        ms: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 999 }), fc.integer({ min: 1000, max: 5000 }), fc.integer({ min: 40_000, max: 120_000 }), fc.constant(8 * DAY)),
      }),
    },
    { weight: 3, arbitrary: fc.constant({ k: 'poll' as const }) },
  );
  // A few operations before the first poll (what exists at activation), then the rest.
  return fc
    .tuple(fc.array(op, { maxLength: 4 }), fc.array(op, { minLength: Math.floor(length / 2), maxLength: length }))
    .map(([before, after]) => [...before.filter((o) => o.k !== 'poll'), { k: 'poll' as const }, ...after]);
}

function poller(host: Host, ev: PollEvent): Poller {
  if (host.kind === 'core') return world.core(ev, { pageSize: host.pageSize, budget: host.budget, remember: host.remember, windowDays: WINDOW_DAYS });
  if (host.kind === 'n8n') return world.n8n(ev);
  let writes = 0;
  return world.zapier(ev, { cacheRefuses: host.flakyCache ? () => ++writes % 3 === 0 : undefined });
}

/** Runs one scenario and checks the property; throws with what went wrong. */
async function scenario(m: Model, ev: PollEvent, host: Host, list: Op[]): Promise<void> {
  await world.begin(m);
  const p = poller(host, ev);
  const counts = new Map<string, number>();
  let activation: { second: number; present: Set<string> } | undefined;
  let spanned = false;
  let initialDoneAt: number | undefined;
  const pollOnce = async () => {
    if (!activation) activation = { second: Math.floor(world.now / SECOND) * SECOND, present: world.present(ev) };
    const first = initialDoneAt === undefined;
    const out = await p.poll();
    if (process.env.DEBUG_POLL) console.log(JSON.stringify({ now: new Date(world.now).toISOString(), returned: out.returned, emitted: out.emitted.map((e) => e.id), notes: out.notes, state: p.state(), present: [...world.present(ev)] }, null, 1));
    const times = out.returned.map((i) => Date.parse(i.createdAt));
    if (times.some((t, i) => i > 0 && t > times[i - 1])) throw new Error(`a poll returned ${out.returned.map((i) => i.createdAt).join(', ')}: not newest first`);
    for (const item of out.emitted) counts.set(item.id, (counts.get(item.id) ?? 0) + 1);
    if (first) {
      if (p.state()?.walk) spanned = true;
      else initialDoneAt = world.now;
    }
  };
  const live = () => world.certificates();
  for (const op of list) {
    if (op.k === 'issue') await world.issue(op.n, { bounce: op.bounce, send: op.send });
    else if (op.k === 'send') {
      const all = live();
      if (all.length > 0) await world.send(all[op.pick % all.length].id);
    } else if (op.k === 'delete') {
      // A run of neighbours in issue order (often the newest, which a newest-first walk reads
      // first): enough to move an offset cursor past a whole page.
      const all = live();
      const start = op.newest ? Math.max(all.length - op.count, 0) : op.pick % Math.max(all.length, 1);
      for (const r of all.slice(start, start + op.count)) await world.remove(r.id);
    } else if (op.k === 'settle') world.settleMail();
    else if (op.k === 'tick') world.tick(op.ms);
    else await pollOnce();
  }
  // The end: mail handed over, then polls until two walks are done, each moving the floor
  // (cursors stay valid: 1.5 s apart, no writes).
  world.settleMail();
  let finished = 0;
  let floor = p.state()?.floor;
  for (let i = 0; finished < 2; i++) {
    if (i > 400) throw new Error(`the walks never finished (state ${JSON.stringify(p.state())})`);
    world.tick(1500);
    await pollOnce();
    if (p.state()?.floor !== floor) [finished, floor] = [finished + 1, p.state()?.floor];
    // A state of another version (a reverted fix) has no walks: three polls settle it.
    if (p.state()?.v !== 2 && i >= 2) break;
  }

  const final = world.present(ev);
  const problems: string[] = [];
  const dedupes = hostName(host) === "zapier-like";
  for (const [key, n] of counts) {
    const t = world.truth.get(key);
    if (n > 1) problems.push(`${key} emitted ${n} times`);
    if (!t || t.event !== ev) {
      problems.push(`${key} emitted but never happened`);
      continue;
    }
    if (activation!.present.has(key)) {
      // Zapier keeps no ids: when the first walk spanned polls it cannot tell what it read after the first poll.
      const ambiguous = dedupes && spanned && (ev === 'failed' || t.at >= activation!.second);
      if (!ambiguous) problems.push(`${key} existed before the first poll, and was emitted`);
    }
  }
  for (const key of final) {
    const t = world.truth.get(key)!;
    if (counts.has(key) || activation!.present.has(key)) continue;
    if (ev !== 'issued' && t.at - t.created > WINDOW_DAYS * DAY) continue; // outside the window: a documented miss
    if (spanned && ev !== 'failed' && t.at < activation!.second + SECOND) continue; // the second of activation
    if (spanned && ev === 'failed' && (initialDoneAt === undefined || t.seenAt <= initialDoneAt)) continue; // before the first walk was done
    problems.push(`${key} (created ${new Date(t.created).toISOString()}, at ${new Date(t.at).toISOString()}) is there at the end and was never emitted`);
  }
  if (problems.length === 0) await recovery(ev, activation!.second, counts, final, problems);
  if (problems.length > 0) throw new Error(`${problems.length} problem(s): ${problems.slice(0, 5).join('; ')}`);
}

/** Recovery after the polls (see the top): what it must and must not run. */
async function recovery(ev: PollEvent, since: number, emitted: Map<string, number>, final: Set<string>, problems: string[]): Promise<void> {
  const inWindow = (key: string) => {
    const t = world.truth.get(key);
    return !!t && t.event === ev && (ev === 'failed' ? t.created >= since - WINDOW_DAYS * DAY : t.at >= since);
  };
  const { ran } = await world.recover(ev, since, emitted.keys());
  const seen = new Set<string>();
  for (const key of ran) {
    if (seen.has(key)) problems.push(`recovery ran ${key} twice`);
    seen.add(key);
    if (emitted.has(key)) problems.push(`recovery ran ${key}, which the poll had emitted`);
    if (!inWindow(key)) problems.push(`recovery ran ${key}, which is not an occurrence in its window`);
  }
  for (const key of final) if (inWindow(key) && !emitted.has(key) && !seen.has(key)) problems.push(`recovery missed ${key}`);
}

/** Zapier, and the core without memory, rely on the host's dedupe. */
function hostName(host: Host): 'zapier-like' | 'remembers' {
  return host.kind === 'zapier' || (host.kind === 'core' && !host.remember) ? 'zapier-like' : 'remembers';
}

const coreHost: fc.Arbitrary<Host> = fc.record({
  kind: fc.constant('core' as const),
  pageSize: fc.constantFrom(2, 3),
  budget: fc.constantFrom(2, 3),
  remember: fc.boolean(),
});

const CASES: [string, fc.Arbitrary<Host>, number, number, number][] = [
  // [name, host, largest bulk call, operations, runs]
  ['the core (pages of 2 or 3, 2 or 3 requests a poll)', coreHost, 12, 40, 40],
  ['the n8n Poll Trigger', fc.constant({ kind: 'n8n' as const }), 100, 20, 30],
  ['the Zapier polling trigger (its cache refusing writes or not)', fc.record({ kind: fc.constant('zapier' as const), flakyCache: fc.boolean() }), 100, 20, 30],
];

describe.each(CASES)('%s', (_name, host, maxBulk, length, numRuns) => {
  const property = () => fc.asyncProperty(model, event, host, ops(maxBulk, length), (m, ev, h, list) => scenario(m, ev, h, list));
  test('fixed seed', async () => {
    await fc.assert(property(), { seed: FIXED_SEED, numRuns });
  });
  test('fresh seed', async () => {
    const seed = Number(process.env.POLL_PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31));
    try {
      await fc.assert(property(), { seed, numRuns });
    } catch (error) {
      (error as Error).message = `Fresh seed ${seed}: replay with POLL_PROPERTY_SEED=${seed}.\n${(error as Error).message}`;
      throw error;
    }
  });
});

// POLL_REPLAY='<counterexample as printed>' runs that one scenario (DEBUG_POLL=1 prints each poll).
if (process.env.POLL_REPLAY) {
  test('replay', async () => {
    const [m, ev, h, list] = JSON.parse(process.env.POLL_REPLAY!) as [Model, PollEvent, Host, Op[]];
    await scenario(m, ev, h, list);
  });
}
