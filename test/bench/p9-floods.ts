// P9: floods. A bulk issue of 1,000 certificates with `send: true` makes 2,000 deliveries
// (issued + sent) within seconds. Each one goes to a published n8n 2.41.1 workflow through
// one of our two receive paths:
//   trigger: the Certificate Service Trigger, version 2;
//   verify:  Webhook (Raw Body) → Certificate Service: Delivery → Verify (in queue mode with
//            Record Delivery IDs on, since its memory is per worker).
// Measured in a single n8n process and in queue mode (2 workers, 2 webhook processes behind
// nginx hashing on X-Service-Delivery, as P8), each against two senders:
//   uncapped: every delivery is sent as its event fires (the sandbox's default);
//   capped:   at most DELIVERY_CONCURRENCY attempts in flight per subscription (the sandbox's
//             `deliveryConcurrency`, our choice of a sender with a small pool per endpoint).
// Each delivery must be answered within 10 s (the service's rule, not scaled); a failed
// attempt is retried after 1 min, 5 min, 30 min, … × TIME_SCALE.
//
// Counted once the sender has nothing left to retry and n8n's executions settled (or 90 s after
// the sender finished, when n8n is still working: the row says so):
// executions per delivery (target exactly 1), deliveries lost (target 0), sender attempts
// per delivery, and the time until every delivery had run once against the ideal, which is
// deliveries ÷ the path's rate in P3 (results.json, same machine, concurrency 8).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copyPackageToExtensionsDir, ensurePackageBuilt, PACKAGE_DIR } from '../e2e/n8n/package-setup';
import { ensureN8nInstalled, startN8n, type N8nInstance } from '../e2e/n8n/harness';
import { startQueueN8n, type QueueN8n } from '../e2e/queue/harness';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { fmt } from './common';
import { median, round, type Row } from './measure';
import { flood, readFailures, setUpPath, type FloodResult, type PathName } from './p9-flood';

/** 1 min → 0.12 s, 24 h → 173 s: the whole 7-attempt schedule fits in 4.6 min. */
export const TIME_SCALE = 0.002;
/** Our choice for the capped sender (and P3's concurrency, so the ideal below is like for like). */
export const DELIVERY_CONCURRENCY = 8;

type Mode = 'single' | 'queue';
type Sender = 'uncapped' | 'capped';
interface Measured extends FloodResult {
  mode: Mode;
  sender: Sender;
  idealSeconds: number;
  load: { before: number[]; after: number[] };
  /** Reads of n8n's execution API that failed and were retried (503s under the flood, timeouts). */
  apiReadFailures: number;
  apiReadFailureExample: string | null;
}

/** The path's deliveries/s in P3 (median of its rounds), from results.json. */
function p3Rate(p: PathName): number {
  const file = path.join(__dirname, 'results.json');
  const p3 = JSON.parse(fs.readFileSync(file, 'utf8')).results?.P3 as { extra?: { roundResults?: Array<{ side: string; perSecond: number }> } } | undefined;
  const side = p === 'trigger' ? 'ours' : 'verify';
  const rates = (p3?.extra?.roundResults ?? []).filter((r) => r.side === side).map((r) => r.perSecond);
  if (!rates.length) throw new Error('P9 needs P3 in results.json (npm run bench -- --only P3)');
  return median(rates);
}

const loadavg = () => os.loadavg().map((x) => round(x, 2));

async function inMode(mode: Mode, ext: string, senders: Record<Sender, Sandbox>, certificates: number, log: (line: string) => void): Promise<Measured[]> {
  let single: N8nInstance | undefined;
  let q: QueueN8n | undefined;
  try {
    log(`P9 ${mode}: starting n8n …`);
    if (mode === 'single') single = await startN8n({ customExtensionsDir: ext });
    else q = await startQueueN8n({ customExtensionsDir: ext, workers: 2, webhooks: 2, concurrency: 10 });
    const main = single ?? q!.main;
    const webhookBase = single ? single.baseUrl : q!.url;
    const out: Measured[] = [];
    for (const sender of ['capped', 'uncapped'] as const) {
      for (const p of ['trigger', 'verify'] as const) {
        const tag = `${mode}-${sender}-${p}`;
        const before = loadavg();
        const stage = async <T>(what: string, fn: () => Promise<T>): Promise<T> =>
          fn().catch((error: Error) => {
            throw new Error(`${tag}, ${what} (load ${loadavg().join(' ')}): ${error.message}`);
          });
        const setup = await stage('setting up', () => setUpPath(main, webhookBase, senders[sender], p, tag, mode === 'queue' && p === 'verify'));
        readFailures.length = 0;
        // webhook() runs where the request lands: main in one process, the webhook processes in queue mode.
        const webhookLogs = () => (single ? single.logs() : q!.webhooks.map((w) => w.logs()).join('\n'));
        const res = await stage('flood', () => flood(main, senders[sender], setup, certificates, (line) => log(`P9 ${tag}: ${line}`), webhookLogs));
        const m: Measured = { ...res, mode, sender, idealSeconds: round(res.deliveries / p3Rate(p), 1), load: { before, after: loadavg() }, apiReadFailures: readFailures.length, apiReadFailureExample: readFailures[0] ?? null };
        log(`P9 ${tag}: ${JSON.stringify(m)}`);
        out.push(m);
        await stage('unpublishing', () => main.unpublish(setup.workflowId)); // the next flood has the instance to itself
      }
    }
    return out;
  } finally {
    await single?.stop();
    await q?.stop();
  }
}

const IDS: Record<Mode, Record<PathName, Record<Sender, string>>> = {
  single: { trigger: { uncapped: 'P9', capped: 'P9a' }, verify: { uncapped: 'P9b', capped: 'P9c' } },
  queue: { trigger: { uncapped: 'P9d', capped: 'P9e' }, verify: { uncapped: 'P9f', capped: 'P9g' } },
};

/** Why the lost ones were lost, per group (only the groups that have any). */
function lostNote(m: Measured): string {
  const d = m.perDelivery;
  const parts = [
    d.duplicateButNeverRan ? `${d.duplicateButNeverRan} answered "duplicate" by our code although they never ran` : '',
    d.neverReachedUs ? `${fmt(d.neverReachedUs)} never reached our code (their attempts: ${JSON.stringify(d.why.neverReachedUs)})` : '',
    d.lostAfterN8n2xx ? `${fmt(d.lostAfterN8n2xx)} lost after n8n's own 2xx (their attempts: ${JSON.stringify(d.why.lostAfterN8n2xx)})` : '',
    d.reachedUsNotRun ? `${fmt(d.reachedUsNotRun)} reached our code, then every attempt failed until the sender gave up (${JSON.stringify(d.why.reachedUsNotRun)})` : '',
  ].filter(Boolean);
  return parts.length ? `Lost: ${parts.join('; ')}. ` : '';
}

export function row(m: Measured): Row {
  const pathName = m.path === 'trigger' ? 'Certificate Service Trigger (v2)' : 'Webhook (Raw Body) → Delivery: Verify';
  const where = m.mode === 'single' ? 'one n8n process' : 'queue mode, 2 webhook processes (hash), 2 workers';
  const sender = m.sender === 'uncapped' ? 'sender uncapped' : `sender capped at ${DELIVERY_CONCURRENCY} in flight`;
  const once = m.executions === m.deliveries && m.lost === 0 && m.duplicates === 0;
  const d = m.perDelivery;
  const lostWhy = m.lost
    ? ` (${fmt(d.neverReachedUs)} never reached our code, ${fmt(d.lostAfterN8n2xx)} lost after n8n's own 2xx, ${fmt(d.reachedUsNotRun)} reached it but every attempt failed)`
    : '';
  const started =
    m.executionsStarted <= m.executions
      ? ''
      : m.path === 'verify'
        ? `; ${fmt(m.executionsStarted)} executions started, Verify dropped the copies`
        : `; ${fmt(m.executionsStarted)} executions listed, ${fmt(m.failedExecutions)} of them not successful`;
  const clean = once && m.attempts === m.deliveries && m.failedExecutions === 0 && m.settled;
  const details =
    `Sender: ${fmt(m.attempts)} attempts (failed: ${JSON.stringify(m.attemptFailures)}), ${m.senderFailed} deliveries given up after 7 attempts. ` +
    `Failed executions: ${JSON.stringify(m.executionErrors)}.${m.settled ? '' : ` Counting stopped ${m.countedUntilSeconds} s after the bulk issue, with executions still pending.`} ` +
    `Load average (1 min) before/after: ${m.load.before[0]}/${m.load.after[0]} on ${os.cpus().length} CPUs.`;
  return {
    id: IDS[m.mode][m.path][m.sender],
    what: `flood: ${fmt(m.certificates)} certificates issued with send (${fmt(m.deliveries)} deliveries), ${pathName}, ${where}, ${sender}`,
    ours: `${fmt(m.executions)} deliveries run (${m.executionsPerDelivery} per delivery, ${m.duplicates} run twice), ${fmt(m.lost)} lost${lostWhy}, ${d.duplicateButNeverRan} answered "duplicate" that never ran${started}; ${m.attemptsPerDelivery} sender attempts per delivery (${fmt(m.timedOutAttempts)} timed out); ${m.lost ? 'not all executed' : `all executed in ${m.allExecutedSeconds} s`}`,
    baseline: `ideal ${m.idealSeconds} s (${fmt(m.deliveries)} ÷ the path's P3 rate)`,
    ratio: m.lost ? null : round(m.idealSeconds / m.allExecutedSeconds),
    target: 'exactly 1 execution per delivery, 0 lost; 0 answered "duplicate" that never ran (time: informational)',
    met: once && d.duplicateButNeverRan === 0,
    note: clean ? undefined : `${once ? '' : `${m.duplicates} deliveries run twice; ${fmt(m.lost)} never ran. `}${lostNote(m)}${details}`,
    extra: { ...m, duplicateButNeverRan: d.duplicateButNeverRan, neverReachedUs: d.neverReachedUs, lostAfterN8n2xx: d.lostAfterN8n2xx, reachedUsNotRun: d.reachedUsNotRun },
  };
}

export async function runP9(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<Row[]> {
  const log = options.log ?? (() => {});
  const certificates = options.quick ? 100 : 1000;
  ensureN8nInstalled({ quiet: true });
  ensurePackageBuilt();
  const ext = copyPackageToExtensionsDir(PACKAGE_DIR);
  const common = { rateLimit: false as const, timeScale: TIME_SCALE, maxLogEntries: 500_000 };
  const senders: Record<Sender, Sandbox> = {
    uncapped: await createSandbox(common),
    capped: await createSandbox({ ...common, deliveryConcurrency: DELIVERY_CONCURRENCY }),
  };
  try {
    const measured: Measured[] = [];
    for (const mode of ['single', 'queue'] as const) measured.push(...(await inMode(mode, ext, senders, certificates, log)));
    return measured.map((m) => row(m));
  } finally {
    await senders.uncapped.close();
    await senders.capped.close();
    fs.rmSync(ext, { recursive: true, force: true });
  }
}
