// P9r, P9rd, P9rs: P9's and P9d's uncapped floods (1,000 certificates with `send: true`, 2,000
// deliveries sent as their events fire, retries on P9's scaled schedule), then recovery of the
// window, and every occurrence counted once more: how many never ran (target 0) and how many ran
// twice (target 0) after recovery, beside what the flood alone left.
//   P9r:  one n8n process; P9rd: queue mode (nginx hashing on X-Service-Delivery, 2 webhook
//         processes, 2 workers, Redis, Postgres, as P9d). The receiver is Webhook (Raw Body) →
//         Delivery: Verify with its defaults (Record Delivery IDs on: claims in n8n's database);
//         recovery is `certsvc events recover --forward-to` the webhook (the built CLI, a process
//         of its own, its default pacing), run again while it reports deliveries not answered 2xx,
//         as it tells the user to (at most RECOVER_RUNS times).
//   P9rs: an SDK receiver (createNodeHandler on a fileStore, a process of its own:
//         p9-sdk-receiver.ts); recovery is the SDK's recoverEvents on the same store file.
// The trigger (P9's and P9d's own path) cannot be recovered into: it keeps its secret in the
// workflow's static data (shared/cli/src/events-recover.ts). Recovery starts once the sender has
// nothing left to retry (its last attempt, 4.6 min after the first at P9's TIME_SCALE) and n8n has
// worked through the requests it took, as it would have for real past the service's 39 hours; its
// window is the flood's: from 1 s before the bulk issue to the sender's end, issued and sent (the
// events subscribed).
// An occurrence is `<type> <recipient id>`: a recovered event has an id of its own, the same
// occurrence (the key receivers claim, webhooks/handle.ts claimKey).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, fileStore } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { copyPackageToExtensionsDir, ensurePackageBuilt, PACKAGE_DIR } from '../e2e/n8n/package-setup';
import { ensureN8nInstalled, startN8n, type N8nInstance } from '../e2e/n8n/harness';
import { startQueueN8n, type QueueN8n } from '../e2e/queue/harness';
import { runCliProcess } from '../support/cli';
import { answers, freePort } from '../support/net';
import { until } from '../support/until';
import { attemptLabel } from '../support/delivery-outcomes';
import { fmt } from './common';
import { round, type Row } from './measure';
import { bulkIssue, executionsSince, flood, readFailures, setUpPath, type FloodResult } from './p9-flood';
import { TIME_SCALE } from './p9-floods';

type Receiver = 'single' | 'queue' | 'sdk';
const IDS: Record<Receiver, string> = { single: 'P9r', queue: 'P9rd', sdk: 'P9rs' };
/** `certsvc events recover` runs at most this often (again only while it reports deliveries not answered 2xx). */
const RECOVER_RUNS = 3;
const EVENTS = ['issued', 'sent'] as const;

/** One run of an occurrence by a receiver. */
interface Run {
  occurrence: string;
  deliveryId: string;
  at: number;
}

/** What the recovery reported: the CLI's JSON summaries added up, or recoverEvents' result. */
interface Recovery {
  how: 'certsvc events recover' | 'recoverEvents';
  runs: number;
  found: number;
  /** CLI: deliveries forwarded (sent at least once), over all runs. */
  forwarded?: number;
  answered2xx?: number;
  failed?: number;
  notDelivered?: number;
  /** recoverEvents: run by onEvent, already claimed, held elsewhere. */
  ran?: number;
  duplicates?: number;
  pending?: number;
  seconds: number;
  /** How long after the sender's last attempt recovery started (n8n: once it had finished the flood's requests). */
  startedSecondsAfterSender?: number;
  /** CLI: the last run's exit code and the end of its stderr, when it was not 0. */
  exitCode?: number;
  stderr?: string;
}

export interface Recovered {
  receiver: Receiver;
  certificates: number;
  deliveries: number;
  /** The flood alone (before recovery): occurrences run, never run, run twice. */
  flood: { ran: number; lost: number; ranTwice: number; senderDoneSeconds: number; attempts: number; attemptFailures: Record<string, number>; senderFailed: number; result?: FloodResult };
  recovery: Recovery;
  /** Occurrences first run by a recovered delivery (the rest of the recovered ones were dropped as already run). */
  recoveredRan: number;
  /** Runs by recovered deliveries in all (above recoveredRan: an occurrence run twice by recovery). */
  recoveredRuns: number;
  /** After recovery: occurrences of the flood never run, and extra runs (sum of runs − 1). */
  lost: number;
  ranTwice: number;
  /** Runs of occurrences that are not the flood's (target 0: the window reads only the flood's batch). */
  foreign: number;
  /** From the first bulk call until every occurrence had run once (null: some never did). */
  allRanSeconds: number | null;
  /** Executions still listed as running when counting stopped (n8n only; see n8nSettled). */
  stillRunning: number;
  load: { before: number[]; afterFlood: number[]; after: number[] };
}

const loadavg = () => os.loadavg().map((x) => round(x, 2));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The flood's occurrences and delivery ids, from the sandbox's logs. */
function floodOf(sb: Sandbox, batchId: string, subscriptionId: string) {
  const recipients = new Set(sb.controls.certificates(batchId).map((r) => r.id));
  const events = sb.controls.events().filter((e) => recipients.has(e.recipientId));
  const eventIds = new Set(events.map((e) => e.id));
  const attempts = sb.controls.deliveries().filter((d) => d.subscriptionId === subscriptionId && eventIds.has(d.eventId));
  return { occurrences: new Set(events.map((e) => `${e.type} ${e.recipientId}`)), deliveryIds: new Set(attempts.map((a) => a.deliveryId)), attempts, events };
}

/** Runs per occurrence; lost, twice and foreign against the flood's occurrences. */
function tally(runs: Run[], occurrences: Set<string>) {
  const count = new Map<string, number>();
  for (const r of runs) count.set(r.occurrence, (count.get(r.occurrence) ?? 0) + 1);
  const ours = [...count].filter(([o]) => occurrences.has(o));
  return {
    ran: ours.length,
    lost: [...occurrences].filter((o) => !count.has(o)).length,
    ranTwice: ours.reduce((n, [, c]) => n + c - 1, 0),
    foreign: [...count].filter(([o]) => !occurrences.has(o)).reduce((n, [, c]) => n + c, 0),
  };
}

function measured(receiver: Receiver, certificates: number, t0: number, fl: ReturnType<typeof floodOf>, floodRuns: Run[], allRuns: Run[], recovery: Recovery, stillRunning: number, load: Recovered['load'], result?: FloodResult): Recovered {
  const before = tally(floodRuns, fl.occurrences);
  const after = tally(allRuns, fl.occurrences);
  const recoveredRuns = allRuns.filter((r) => !fl.deliveryIds.has(r.deliveryId) && fl.occurrences.has(r.occurrence));
  const firstRun = new Map<string, number>();
  for (const r of allRuns) if (!(firstRun.get(r.occurrence)! <= r.at)) firstRun.set(r.occurrence, r.at);
  const ranInFlood = new Set(floodRuns.map((r) => r.occurrence));
  return {
    receiver,
    certificates,
    deliveries: fl.events.length,
    flood: {
      ran: before.ran,
      lost: before.lost,
      ranTwice: before.ranTwice,
      senderDoneSeconds: round((Math.max(...fl.attempts.map((a) => a.atMs + a.durationMs)) - t0) / 1000, 1),
      attempts: fl.attempts.length,
      attemptFailures: fl.attempts.filter((a) => a.outcome !== 'succeeded').reduce<Record<string, number>>((t, a) => ({ ...t, [attemptLabel(a)]: (t[attemptLabel(a)] ?? 0) + 1 }), {}),
      senderFailed: fl.attempts.filter((a) => a.outcome === 'failed').length,
      ...(result ? { result } : {}),
    },
    recovery,
    recoveredRan: new Set(recoveredRuns.map((r) => r.occurrence).filter((o) => !ranInFlood.has(o))).size,
    recoveredRuns: recoveredRuns.length,
    lost: after.lost,
    ranTwice: after.ranTwice,
    foreign: after.foreign,
    allRanSeconds: after.lost ? null : round((Math.max(...[...fl.occurrences].map((o) => firstRun.get(o)!)) - t0) / 1000, 1),
    stillRunning,
    load,
  };
}

/** `certsvc events recover` into `url`, again while deliveries were not answered 2xx (as it says to do), RECOVER_RUNS times at most. */
async function recoverWithCli(sb: Sandbox, apiKey: string, secret: string, url: string, since: number, untilMs: number, log: (line: string) => void): Promise<Recovery> {
  const env = { CERTSVC_API_KEY: apiKey, CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_WEBHOOK_SECRET: secret };
  const args = ['events', 'recover', '--since', new Date(since).toISOString(), '--until', new Date(untilMs).toISOString(), '--events', EVENTS.join(','), '--receiver-memory', '20000', '--forward-to', url];
  const total: Recovery = { how: 'certsvc events recover', runs: 0, found: 0, forwarded: 0, answered2xx: 0, failed: 0, notDelivered: 0, seconds: 0 };
  const started = Date.now();
  for (;;) {
    const run = await runCliProcess(args, env);
    total.runs++;
    let report: { found: number; forwarded: number; answered2xx: number; failed: number; notDelivered: number };
    try {
      report = JSON.parse(run.stdout);
    } catch {
      throw new Error(`certsvc events recover exited ${run.code} without its report: ${run.stderr.slice(-500)}`);
    }
    log(`recover run ${total.runs} (exit ${run.code}): ${JSON.stringify({ ...report, failures: undefined })}`);
    total.found = report.found;
    total.forwarded! += report.forwarded;
    total.answered2xx = report.answered2xx; // the last run's: what the receiver answered 2xx in the end
    total.failed = report.failed;
    total.notDelivered = report.notDelivered;
    total.exitCode = run.code;
    if (run.code === 0 || total.runs >= RECOVER_RUNS) {
      if (run.code !== 0) total.stderr = run.stderr.slice(-400);
      break;
    }
  }
  total.seconds = round((Date.now() - started) / 1000, 1);
  return total;
}

/** The workflow's runs: one per item Verify output, by the delivery id the Webhook node received. */
async function n8nRuns(main: N8nInstance, setup: Awaited<ReturnType<typeof setUpPath>>, sinceId: number): Promise<Run[]> {
  const executions = await executionsSince(main, setup, sinceId, true);
  return executions.flatMap((e) => e.occurrences.map((occurrence) => ({ occurrence, deliveryId: e.deliveryId ?? '', at: Date.parse(String(e.stoppedAt)) })));
}

/**
 * Waits until n8n's executions of the workflow held still for 5 s with none running. Some may stay
 * listed as running with nothing left to run them (n8n under a flood): when neither the count nor
 * the running ones changed for STUCK_MS, counting stops there; returns how many were still listed
 * as running then (0: settled). Gives up after `timeoutMs` the same way.
 */
async function n8nSettled(main: N8nInstance, setup: Awaited<ReturnType<typeof setUpPath>>, sinceId: number, timeoutMs: number, log: (line: string) => void): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  let stableSince = Date.now();
  let nextLog = 0;
  for (;;) {
    const list = await executionsSince(main, setup, sinceId, false);
    const running = list.filter((e) => !e.stoppedAt).length;
    const now = `${list.length}/${running}`;
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= (running ? STUCK_MS : 5_000) || Date.now() > deadline) return running;
    if (Date.now() >= nextLog) {
      log(`after recovery: ${list.length} executions, ${running} running`);
      nextLog = Date.now() + 15_000;
    }
    await sleep(1_000);
  }
}
/** How long executions listed as running may stay unchanged before counting stops. */
const STUCK_MS = 90_000;

async function inN8n(mode: 'single' | 'queue', ext: string, sb: Sandbox, certificates: number, log: (line: string) => void): Promise<Recovered> {
  let single: N8nInstance | undefined;
  let q: QueueN8n | undefined;
  const tag = `r-${mode}`;
  const say = (line: string) => log(`${IDS[mode]}: ${line}`);
  try {
    say('starting n8n …');
    if (mode === 'single') single = await startN8n({ customExtensionsDir: ext });
    else q = await startQueueN8n({ customExtensionsDir: ext, workers: 2, webhooks: 2, concurrency: 10 });
    const main = single ?? q!.main;
    const setup = await setUpPath(main, single ? single.baseUrl : q!.url, sb, 'verify', tag, 'default');
    const sinceId = Math.max(0, ...(await executionsSince(main, setup, 0, false)).map((e) => e.id));
    const before = loadavg();
    readFailures.length = 0;
    const since = Date.now() - 1_000;
    const webhookLogs = () => (single ? single.logs() : q!.webhooks.map((w) => w.logs()).join('\n'));
    const result = await flood(main, sb, setup, certificates, say, webhookLogs);
    const fl = floodOf(sb, result.batchId, setup.subscriptionId);
    const t0 = result.t0;
    // Recovery runs past the service's 39 hours of retries, when n8n has long worked through the
    // flood: so n8n first finishes what it took (flood() stops counting 90 s after the sender).
    const untilMs = Date.now();
    say(`sender done (${result.lost} not run yet); waiting for n8n to finish the flood's requests …`);
    const floodStillRunning = await n8nSettled(main, setup, sinceId, 15 * 60_000, say);
    const floodRuns = await n8nRuns(main, setup, sinceId);
    const afterFlood = loadavg();
    const waitedSeconds = round((Date.now() - untilMs) / 1000, 1);
    say(`flood done after ${waitedSeconds} s more (${floodRuns.length} runs, ${floodStillRunning} listed as running); recovering …`);
    const recovery = await recoverWithCli(sb, setup.apiKey, setup.secret!, setup.url!, since, untilMs, say);
    const stillRunning = await n8nSettled(main, setup, sinceId, 15 * 60_000, say);
    const allRuns = await n8nRuns(main, setup, sinceId);
    const m = measured(mode, certificates, t0, fl, floodRuns, allRuns, { ...recovery, startedSecondsAfterSender: waitedSeconds }, stillRunning, { before, afterFlood, after: loadavg() }, result);
    say(JSON.stringify({ ...m, flood: { ...m.flood, result: undefined } }));
    await main.unpublish(setup.workflowId);
    return m;
  } finally {
    await single?.stop();
    await q?.stop();
  }
}

/** The SDK receiver's runs, from its log (the child's and recoverEvents' lines). */
const logRuns = (file: string): Run[] =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Run)
    : [];

async function inSdkReceiver(sb: Sandbox, certificates: number, log: (line: string) => void): Promise<Recovered> {
  const say = (line: string) => log(`${IDS.sdk}: ${line}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-p9rs-'));
  const store = path.join(dir, 'claims.db');
  const ranLog = path.join(dir, 'ran.jsonl');
  let child: ChildProcess | undefined;
  try {
    const port = await freePort();
    const ws = sb.controls.createWorkspace({ quota: 100_000 });
    const core = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const sub = await core.createSubscription({ url: `http://127.0.0.1:${port}/hooks`, events: EVENTS.map((e) => `certificate.${e}` as const) });
    const secret = sb.controls.subscriptions(ws.workspaceId)[0].secret;
    const stderr: string[] = [];
    child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'p9-sdk-receiver.ts')], {
      env: { ...process.env, PORT: String(port), SECRET: secret, STORE: store, RAN_LOG: ranLog },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (d: Buffer) => stderr.push(d.toString()));
    await until('the SDK receiver to listen', () => answers(port), 60_000, 200).catch((error: Error) => {
      throw new Error(`${error.message}: ${stderr.join('').slice(-500)}`);
    });
    const before = loadavg();
    const since = Date.now() - 1_000;
    const { batchId, t0 } = await bulkIssue(sb, ws.apiKey, certificates, 'P9 sdk receiver');
    // The sender is done when every event fired and each delivery has its final outcome.
    let nextLog = 0;
    await until(
      'the sender to finish',
      () => {
        const fl = floodOf(sb, batchId, sub.id);
        const final = new Set(fl.attempts.filter((a) => a.outcome !== 'retrying').map((a) => a.deliveryId));
        if (Date.now() >= nextLog) {
          say(`${Math.round((Date.now() - t0) / 1000)} s: ${fl.events.length} events, ${fl.attempts.length} attempts, ${final.size} deliveries done at the sender, ${logRuns(ranLog).length} run`);
          nextLog = Date.now() + 15_000;
        }
        return fl.events.length === 2 * certificates && final.size === fl.events.length;
      },
      12 * 60_000,
      500,
    );
    const fl = floodOf(sb, batchId, sub.id);
    const floodRuns = logRuns(ranLog);
    const afterFlood = loadavg();
    const untilMs = Date.now();
    say(`flood done (${floodRuns.length} runs); recovering …`);
    const started = Date.now();
    const claims = fileStore(store);
    let result;
    try {
      result = await core.recoverEvents({
        since,
        until: untilMs,
        events: [...EVENTS],
        store: claims,
        onEvent: (event, delivery) => fs.appendFileSync(ranLog, `${JSON.stringify({ occurrence: `${event.type} ${event.data.id}`, deliveryId: delivery.id, at: Date.now() })}\n`),
      });
    } finally {
      claims.close();
    }
    const recovery: Recovery = { how: 'recoverEvents', runs: 1, found: result.found, ran: result.ran, duplicates: result.duplicates, pending: result.pending, failed: result.failed.length, seconds: round((Date.now() - started) / 1000, 1) };
    say(`recoverEvents: ${JSON.stringify({ ...recovery, failed: result.failed.slice(0, 3).map((f) => String(f.error)) })}`);
    const m = measured('sdk', certificates, t0, fl, floodRuns, logRuns(ranLog), recovery, 0, { before, afterFlood, after: loadavg() });
    say(JSON.stringify(m));
    return m;
  } finally {
    child?.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function recoveryRow(m: Recovered): Row {
  const where =
    m.receiver === 'sdk'
      ? 'an SDK receiver (createNodeHandler, fileStore, one Node process)'
      : `Webhook (Raw Body) → Delivery: Verify (Record Delivery IDs on, the default), ${m.receiver === 'single' ? 'one n8n process (as P9)' : 'queue mode, 2 webhook processes (hash), 2 workers (as P9d)'}`;
  const how = m.receiver === 'sdk' ? "the SDK's recoverEvents on the receiver's store file" : '`certsvc events recover --forward-to` the webhook';
  const r = m.recovery;
  const recovery =
    r.how === 'recoverEvents'
      ? `recoverEvents found ${fmt(r.found)}, ran ${fmt(r.ran!)}, ${fmt(r.duplicates!)} already claimed, ${r.pending} pending, ${r.failed} failed, in ${r.seconds} s`
      : `certsvc found ${fmt(r.found)}, forwarded ${fmt(r.forwarded!)} in ${r.runs} run${r.runs > 1 ? 's' : ''} (last run: ${fmt(r.answered2xx!)} answered 2xx, ${r.failed} failed, ${r.notDelivered} not delivered) in ${r.seconds} s`;
  const f = m.flood;
  const details =
    `The flood: ${fmt(f.attempts)} sender attempts (failed: ${JSON.stringify(f.attemptFailures)}), ${fmt(f.senderFailed)} deliveries given up after 7 attempts, sender done ${f.senderDoneSeconds} s after the bulk issue. ` +
    `${r.startedSecondsAfterSender === undefined ? '' : `Recovery started ${r.startedSecondsAfterSender} s after the sender's last attempt, once n8n had finished the flood's requests. `}` +
    `${m.foreign ? `${m.foreign} runs of events not in the flood. ` : ''}${m.stillRunning ? `Counting stopped with ${m.stillRunning} executions listed as running, unchanged for ${STUCK_MS / 1000} s (or 15 min after recovery). ` : ''}` +
    `${r.stderr ? `certsvc's last stderr: ${r.stderr} ` : ''}` +
    `Load average (1 min) before the flood/after it/after recovery: ${m.load.before[0]}/${m.load.afterFlood[0]}/${m.load.after[0]} on ${os.cpus().length} CPUs.`;
  return {
    id: IDS[m.receiver],
    what: `flood, then recovery: ${fmt(m.certificates)} certificates issued with send (${fmt(m.deliveries)} deliveries), sender uncapped, into ${where}; then ${how}`,
    ours: `after recovery ${fmt(m.lost)} lost, ${fmt(m.ranTwice)} run twice; ${fmt(m.recoveredRan)} run from recovery (${fmt(m.recoveredRuns)} runs); ${recovery}; ${m.allRanSeconds === null ? 'not all ran' : `every delivery had run ${m.allRanSeconds} s after the bulk issue`}`,
    baseline: `the flood alone: ${fmt(f.ran)} run, ${fmt(f.lost)} lost, ${fmt(f.ranTwice)} run twice`,
    ratio: null,
    target: '0 lost and 0 run twice after recovery (time: informational)',
    met: m.lost === 0 && m.ranTwice === 0 && m.foreign === 0,
    note: details,
    extra: { ...m, flood: { ...f, result: undefined }, floodResult: f.result },
  };
}

export async function runP9R(options: { quick?: boolean; log?: (line: string) => void; only?: Receiver[] } = {}): Promise<Row[]> {
  const log = options.log ?? (() => {});
  const certificates = options.quick ? 100 : 1000;
  const which = options.only ?? (['sdk', 'single', 'queue'] as Receiver[]);
  const sb = await createSandbox({ rateLimit: false, timeScale: TIME_SCALE, maxLogEntries: 500_000 });
  let ext: string | undefined;
  try {
    const rows: Row[] = [];
    for (const receiver of which) {
      if (receiver === 'sdk') rows.push(recoveryRow(await inSdkReceiver(sb, certificates, log)));
      else {
        if (!ext) {
          ensureN8nInstalled({ quiet: true });
          ensurePackageBuilt();
          ext = copyPackageToExtensionsDir(PACKAGE_DIR);
        }
        rows.push(recoveryRow(await inN8n(receiver, ext, sb, certificates, log)));
      }
    }
    return rows;
  } finally {
    await sb.close();
    if (ext) fs.rmSync(ext, { recursive: true, force: true });
  }
}
