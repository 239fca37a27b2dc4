// The poll trigger when n8n is killed (issue 36, item 4): a measurement, not a CI test.
//
// A real n8n 2.41.1 (single mode, SQLite) with our package, one published workflow:
// Certificate Service Poll Trigger (issued, one batch, a poll every few seconds) → HTTP Request
// posting each item to a sink in this process, so what ran survives n8n's death. The sandbox is
// the service, reached through a proxy here that sees each list request: for each of `kills`
// rounds the script issues new certificates, waits for the poll that reads them and kill -9s
// n8n's process group a random delay after that read (seeded), restarts n8n and lets it catch
// up. At the end it counts per certificate how often the sink got it (ran) and in how many of
// n8n's stored executions it is (stored), with n8n's durable poll cursors off (today's
// default) and on. Writes test/bench/n8n-kill/results.json.
//
//   npm exec -- tsx test/bench/n8n-kill/run.ts [--kills 20] [--seed 36] [--modes off,on] [--every 5] [--max-delay 600]
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createClient } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { ensureN8nInstalled, N8N_VERSION, startN8n, type N8nInstance } from '../../e2e/n8n/harness';
import { copyPackageToExtensionsDir, ensurePackageBuilt, PACKAGE_DIR } from '../../e2e/n8n/package-setup';

import { RESULTS, writeReadme } from './readme';
import { until } from '../../support/until';

/** The four switches of n8n's durable poll cursors (n8n/dist/workflows/triggers/poll-cursor.service.js). */
export const DURABLE_SWITCHES = {
  N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
  N8N_SCHEDULER_ENABLED: 'true',
  N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
  N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
};
/** The durable scheduler records and starts runs on these intervals (s); n8n's own poll e2e tests use 1. */
const SCHEDULER_PACE = { N8N_SCHEDULER_MATERIALIZATION_INTERVAL: '1', N8N_SCHEDULER_EXECUTOR_INTERVAL: '1' };

/**
 * off: n8n's defaults. on: the four switches. on-grace: the four switches, and polls that fell
 * due while n8n was down are skipped rather than run at once when it is back (a misfire grace
 * of 2 s instead of 60): with several poll times, each is its own schedule, and after a restart
 * the overdue ones ran side by side from the same cursor (results.json, `on`).
 */
export const MODES = {
  off: {},
  on: { ...DURABLE_SWITCHES, ...SCHEDULER_PACE },
  'on-grace': { ...DURABLE_SWITCHES, ...SCHEDULER_PACE, N8N_SCHEDULER_MISFIRE_GRACE: '2', N8N_SCHEDULER_MATERIALIZATION_WINDOW: '2' },
} as const;
type Mode = keyof typeof MODES;

interface Options {
  kills: number;
  seed: number;
  modes: Mode[];
  everySeconds: number;
  maxDelayMs: number;
  perRound: number;
}

function parseArgs(argv: string[]): Options {
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const num = (name: string, fallback: number) => {
    const v = get(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number; got ${JSON.stringify(v)}`);
    return n;
  };
  const modes = (get('modes') ?? 'off,on').split(',').map((m) => m.trim());
  for (const m of modes) if (!(m in MODES)) throw new Error(`--modes takes ${Object.keys(MODES).join(', ')}; got ${JSON.stringify(m)}`);
  const everySeconds = num('every', 5);
  if (60 % everySeconds !== 0 || everySeconds < 1) throw new Error('--every must divide 60 (seconds between polls)');
  return { kills: num('kills', 20), seed: num('seed', 36), modes: modes as Mode[], everySeconds, maxDelayMs: num('max-delay', 600), perRound: num('per-round', 2) };
}

/** mulberry32: a small seeded generator, so a run's kill points can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * n8n refuses a poll time whose cron fires more than once a minute (n8n-workflow's
 * isSubMinuteCron: a 6-field cron with anything but one fixed second), so a poll every N
 * seconds is 60/N poll times of "Custom" mode, each at one fixed second of every minute.
 */
export function pollTimesEvery(seconds: number): { item: Array<{ mode: 'custom'; cronExpression: string }> } {
  const item = [];
  for (let s = 0; s < 60; s += seconds) item.push({ mode: 'custom' as const, cronExpression: `${s} * * * * *` });
  return { item };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** A proxy in front of the sandbox that calls `onList` when a list request of the batch arrives. */
function listProxy(target: string, onList: () => void): http.Server {
  const to = new URL(target);
  return http.createServer((req, res) => {
    if (req.method === 'GET' && /\/batches\/[^/]+\/recipients(\?|$)/.test(req.url ?? '')) onList();
    const out = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
}

interface Record_ {
  execution: string;
  id: string;
  at: number;
}

/** The sink the workflow's last node posts each item to. */
function sink(records: Record_[]): http.Server {
  return http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        const r = JSON.parse(body) as { execution: string; id: string };
        records.push({ execution: String(r.execution), id: String(r.id), at: Date.now() });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
}

interface Kill {
  round: number;
  /** Delay after the poll's list request arrived (ms). */
  delayMs: number;
  /** The round's certificates the sink had when the kill landed. */
  ranBeforeKill: number;
  /** n8n down → ready again (ms). */
  restartMs: number;
  /** Starts after the kill that exited with an error before n8n was ready: the error line of each (full logs under /tmp). */
  failedStarts?: string[];
}

/** How many times n8n is started again after a kill before the run gives up. */
const START_ATTEMPTS = 3;

/**
 * Starts n8n again after a kill; a start that exits with an error is recorded (its log kept
 * under /tmp) and tried again, up to START_ATTEMPTS. Returns the errors of the failed starts.
 */
async function restartAfterKill(n8n: N8nInstance, mode: Mode, round: number, say: (m: string) => void): Promise<string[]> {
  const failed: string[] = [];
  for (;;) {
    try {
      await n8n.restart();
      return failed;
    } catch (e) {
      const file = path.join(os.tmpdir(), `certsvc-kill36-${mode}-round${round}-start${failed.length + 1}.log`);
      fs.writeFileSync(file, n8n.logs());
      // The error n8n exits with, not the harmless offline noise (ENOTFOUND api.n8n.io) before it.
      const line = n8n.logs().split('\n').find((l) => /^\w*Error: /.test(l) && !/ENOTFOUND|Exiting due to an error/.test(l)) ?? (e as Error).message.split('\n')[0];
      failed.push(line.trim());
      say(`round ${round}: n8n did not start again (${line.trim()}); log in ${file}`);
      if (failed.length >= START_ATTEMPTS) throw new Error(`round ${round}: n8n did not start after ${START_ATTEMPTS} attempts: ${failed.join(' | ')}`);
    }
  }
}

export interface ModeResult {
  mode: Mode;
  /** The run that measured this setting (a run may measure some settings only; the others are kept). */
  run: { command: string; at: string; seed: number; everySeconds: number; maxDelayMs: number; perRound: number };
  switches: Record<string, string>;
  kills: number;
  certificates: number;
  /** The sink (the node after the trigger) never got it. */
  missed: number;
  /** The sink got it more than once (certificates), and the extra runs in all. */
  repeated: number;
  extraRuns: number;
  /** In no stored execution of n8n / in more than one. */
  storedMissed: number;
  storedRepeated: number;
  /** Missed at the sink but in a stored execution that n8n marked crashed (Retry in n8n's list would run it). */
  missedButStored: number;
  /** n8n did not start again after this round's kill (START_ATTEMPTS tries): the run stopped there; stored counts are then unknown (0). */
  gaveUp?: { round: number; reason: string };
  /** Executions by status at the end. */
  executions: Record<string, number>;
  /** Certificates issued right after publishing, before the first scheduled poll: emitted once (1) or not (0). */
  activationProbe: { issued: number; ran: number };
  /** List request → the sink's record, in the clean polls before the first kill (ms, median). */
  pollToSinkMs: number | null;
  /** Each stored execution at the end: [id, status, mode, startedAt, the certificate ids it holds]. */
  storedExecutions?: Array<[string, string, string, string | null, string[]]>;
  /** Each certificate the sink got more than once: the execution ids that ran it, in order. */
  repeatedRuns?: Record<string, string[]>;
  killDelays: number[];
  killsBeforeSink: number;
  medianRestartMs: number;
  elapsedS: number;
  log: Kill[];
}

/** results.json: each setting as its last run measured it. */
export interface KillResults {
  n8n: string;
  database: string;
  modes: Partial<Record<Mode, ModeResult>>;
}

const commandLine = () => `npm exec -- tsx test/bench/n8n-kill/run.ts ${process.argv.slice(2).join(' ')}`.trim();

const median = (xs: number[]) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : Math.round((s[s.length / 2 - 1] + s[s.length / 2]) / 2);
};

/** Ids of the certificates an execution holds: the trigger's output once it ran, else the stack it was stored with. */
function idsOf(execution: any): string[] {
  const data = execution?.data ?? {};
  const ran = data.resultData?.runData?.Poll?.[0]?.data?.main?.[0];
  const stacked = data.executionData?.nodeExecutionStack?.find((s: any) => s?.node?.name === 'Poll')?.data?.main?.[0];
  const items: any[] = ran ?? stacked ?? [];
  return [...new Set(items.map((i) => i?.json?.recipientId).filter((id) => typeof id === 'string'))];
}

async function allExecutions(n8n: N8nInstance, workflowId: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | undefined;
  do {
    const q = new URLSearchParams({ workflowId, includeData: 'true', limit: '100', ...(cursor ? { cursor } : {}) });
    const page = await n8n.api('GET', `/executions?${q}`);
    out.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

async function runMode(mode: Mode, o: Options, extDir: string): Promise<ModeResult> {
  const say = (msg: string) => console.log(`[${mode}] ${new Date().toISOString().slice(11, 19)} ${msg}`);
  const started = Date.now();
  const rng = seeded(o.seed + Object.keys(MODES).indexOf(mode));
  const records: Record_[] = [];
  let lists = 0;
  let onList: (() => void) | undefined;
  const listTimes: number[] = [];
  const sb: Sandbox = await createSandbox({ rateLimit: false });
  const proxy = listProxy(sb.url, () => {
    lists++;
    listTimes.push(Date.now());
    const f = onList;
    onList = undefined;
    f?.();
  });
  const sinkServer = sink(records);
  const proxyUrl = await listen(proxy);
  const sinkUrl = await listen(sinkServer);
  const core = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey });
  const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), `certsvc-kill36-${mode}-`));
  const switches: Record<string, string> = MODES[mode];
  let n8n: N8nInstance | undefined;
  try {
    n8n = await startN8n({ customExtensionsDir: extDir, userFolder, env: { ...switches, EXECUTIONS_DATA_SAVE_ON_PROGRESS: 'false' }, startTimeoutMs: 240_000 });
    say(`n8n ${N8N_VERSION} on ${n8n.baseUrl}, user folder ${userFolder}`);
    const cred = await n8n.createCredential('certificateServiceApi', 'sandbox', { apiKey: sb.apiKey, baseUrl: proxyUrl });
    const batchId = (await core.createBatch({ title: `kill ${mode}`, designId: 'design_classic' })).id;
    const wf = await n8n.createWorkflow({
      name: `kill -9 (${mode})`,
      nodes: [
        {
          id: randomUUID(),
          name: 'Poll',
          type: 'CUSTOM.certificateServicePollTrigger',
          typeVersion: 1,
          position: [0, 0],
          parameters: { pollTimes: pollTimesEvery(o.everySeconds), event: 'issued', watch: 'batch', batch: { __rl: true, mode: 'id', value: batchId } },
          credentials: { certificateServiceApi: { id: cred.id, name: 'sandbox' } },
        },
        {
          id: randomUUID(),
          name: 'Record',
          type: 'n8n-nodes-base.httpRequest',
          typeVersion: 4.2,
          position: [220, 0],
          parameters: {
            method: 'POST',
            url: `${sinkUrl}/record`,
            sendBody: true,
            specifyBody: 'json',
            jsonBody: '={{ JSON.stringify({ execution: $execution.id, id: $json.recipientId }) }}',
            options: {},
          },
        },
      ],
      connections: { Poll: { main: [[{ node: 'Record', type: 'main', index: 0 }]] } },
    });
    const issued: string[] = [];
    const issue = async (n: number, tag: string) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) ids.push((await core.issueCertificate(batchId, { name: `${tag} ${i}`, email: `${tag}-${i}-${randomUUID().slice(0, 8)}@example.com` })).id);
      return ids;
    };
    const ranCount = (ids: string[]) => ids.filter((id) => records.some((r) => r.id === id)).length;
    const waitLists = (n: number, timeoutMs = 120_000) => {
      const target = lists + n;
      return until(`${n} list request(s)`, () => lists >= target, timeoutMs, 100);
    };

    await n8n.publish(wf.id, 120_000);
    // Issued at once after publishing: does the first scheduled poll emit it? (The activation
    // poll saved a position; with durable cursors on it does not commit one: poll-trigger-executor.js.)
    const probe = await issue(1, 'probe');
    say(`published ${wf.id}; probe ${probe[0]}`);
    await waitLists(3);
    await sleep(3000);
    const probeRan = ranCount(probe);
    say(`activation probe ran ${probeRan} time(s)`);

    // Two clean rounds: the time from a poll's read to the sink's record.
    const latencies: number[] = [];
    for (let i = 0; i < 2; i++) {
      const ids = await issue(o.perRound, `clean${i}`);
      issued.push(...ids);
      await until('the clean round to reach the sink', () => ranCount(ids) === ids.length, 60_000, 100);
      const firstAt = Math.min(...records.filter((r) => ids.includes(r.id)).map((r) => r.at));
      const read = listTimes.filter((t) => t <= firstAt).at(-1);
      if (read !== undefined) latencies.push(firstAt - read);
    }
    say(`clean rounds: poll read → sink ${latencies.join(', ')} ms`);

    const log: Kill[] = [];
    let gaveUp: ModeResult['gaveUp'];
    for (let round = 1; round <= o.kills; round++) {
      const ids = await issue(o.perRound, `r${round}`);
      issued.push(...ids);
      const delayMs = Math.round(rng() * o.maxDelayMs);
      const pid = n8n.process.pid()!;
      let ranBeforeKill = -1;
      const killed = new Promise<void>((resolve) => {
        onList = () =>
          setTimeout(() => {
            ranBeforeKill = ranCount(ids);
            try {
              process.kill(-pid, 'SIGKILL');
            } catch {
              // already gone
            }
            resolve();
          }, delayMs);
      });
      await Promise.race([killed, sleep(120_000).then(() => { throw new Error(`round ${round}: no poll within 120 s`); })]);
      await until('n8n to exit', () => !!n8n!.process.exited(), 30_000, 100);
      const down = Date.now();
      let failedStarts: string[];
      try {
        failedStarts = await restartAfterKill(n8n, mode, round, say);
      } catch (e) {
        gaveUp = { round, reason: (e as Error).message };
        log.push({ round, delayMs, ranBeforeKill, restartMs: -1 });
        break;
      }
      const restartMs = Date.now() - down;
      log.push({ round, delayMs, ranBeforeKill, restartMs, ...(failedStarts.length ? { failedStarts } : {}) });
      say(`round ${round}/${o.kills}: killed ${delayMs} ms after the read (sink had ${ranBeforeKill}/${ids.length}), back in ${restartMs} ms${failedStarts.length ? ` after ${failedStarts.length} failed start(s)` : ''}`);
      // Let the restarted n8n poll once before the next round's certificates.
      await waitLists(1);
      await sleep(1500);
    }
    // Catch up: a few quiet polls, then count. (An n8n that did not start again has no executions to read.)
    if (!gaveUp) {
      await waitLists(3);
      await sleep(5000);
    }
    const executions = gaveUp ? [] : await allExecutions(n8n, wf.id);
    const stored = new Map<string, number>();
    const crashedIds = new Set<string>();
    const byStatus: Record<string, number> = {};
    for (const e of executions) {
      byStatus[e.status] = (byStatus[e.status] ?? 0) + 1;
      for (const id of idsOf(e)) {
        stored.set(id, (stored.get(id) ?? 0) + 1);
        if (e.status !== 'success') crashedIds.add(id);
      }
    }
    const ran = new Map<string, number>();
    for (const r of records) ran.set(r.id, (ran.get(r.id) ?? 0) + 1);
    const count = (m: Map<string, number>, test: (n: number) => boolean) => issued.filter((id) => test(m.get(id) ?? 0)).length;
    const result: ModeResult = {
      mode,
      run: { command: commandLine(), at: new Date().toISOString(), seed: o.seed, everySeconds: o.everySeconds, maxDelayMs: o.maxDelayMs, perRound: o.perRound },
      switches,
      kills: log.length,
      ...(gaveUp ? { gaveUp } : {}),
      certificates: issued.length,
      missed: count(ran, (n) => n === 0),
      repeated: count(ran, (n) => n > 1),
      extraRuns: issued.reduce((s, id) => s + Math.max(0, (ran.get(id) ?? 0) - 1), 0),
      storedMissed: count(stored, (n) => n === 0),
      storedRepeated: count(stored, (n) => n > 1),
      missedButStored: issued.filter((id) => !ran.get(id) && crashedIds.has(id)).length,
      executions: byStatus,
      activationProbe: { issued: 1, ran: probeRan },
      pollToSinkMs: median(latencies),
      storedExecutions: executions
        .map((e): [string, string, string, string | null, string[]] => [String(e.id), e.status, e.mode, e.startedAt ?? null, idsOf(e)])
        .sort((a, b) => Number(a[0]) - Number(b[0])),
      repeatedRuns: Object.fromEntries(issued.filter((id) => (ran.get(id) ?? 0) > 1).map((id) => [id, records.filter((r) => r.id === id).map((r) => r.execution)])),
      killDelays: log.map((k) => k.delayMs),
      killsBeforeSink: log.filter((k) => k.ranBeforeKill < o.perRound).length,
      medianRestartMs: median(log.map((k) => k.restartMs)) ?? 0,
      elapsedS: Math.round((Date.now() - started) / 1000),
      log,
    };
    say(`done: ${result.certificates} certificates, missed ${result.missed}, repeated ${result.repeated} (stored: missed ${result.storedMissed}, repeated ${result.storedRepeated})`);
    return result;
  } catch (e) {
    if (n8n) console.error(`[${mode}] n8n log tail:\n${n8n.logs().slice(-4000)}`);
    throw e;
  } finally {
    // A copy of n8n's database for a closer look (stop() deletes the user folder).
    const db = path.join(userFolder, '.n8n');
    if (process.env.CERTSVC_KILL_KEEP_DB === '1' && fs.existsSync(db)) {
      const keep = path.join(os.tmpdir(), `certsvc-kill36-${mode}-db`);
      fs.rmSync(keep, { recursive: true, force: true });
      fs.cpSync(db, keep, { recursive: true, filter: (f) => !f.includes('/.cache') });
      say(`n8n's database copied to ${keep}`);
    }
    await n8n?.stop().catch(() => undefined);
    fs.rmSync(userFolder, { recursive: true, force: true });
    proxy.close();
    sinkServer.close();
    await sb.close();
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  console.log(`n8n kill -9 measurement: seed ${o.seed}, ${o.kills} kills per mode, modes ${o.modes.join(',')}, a poll every ${o.everySeconds} s, kill 0-${o.maxDelayMs} ms after the poll's read`);
  ensureN8nInstalled();
  ensurePackageBuilt();
  const extDir = copyPackageToExtensionsDir(PACKAGE_DIR);
  try {
    // The modes run side by side (each its own n8n, sandbox, proxy and sink) to fit the time.
    const settled = await Promise.allSettled(o.modes.map((m) => runMode(m, o, extDir)));
    const results: ModeResult[] = [];
    settled.forEach((r, i) => {
      if (r.status === 'fulfilled') results.push(r.value);
      else console.error(`[${o.modes[i]}] did not finish: ${(r.reason as Error).message}`);
    });
    if (results.length === 0) throw new Error('no setting finished; results.json is left as it was');
    const previous = fs.existsSync(RESULTS) ? (JSON.parse(fs.readFileSync(RESULTS, 'utf8')) as KillResults).modes : {};
    const out: KillResults = { n8n: N8N_VERSION, database: 'SQLite', modes: { ...previous, ...Object.fromEntries(results.map((r) => [r.mode, r])) } };
    fs.writeFileSync(RESULTS, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), RESULTS)}`);
    if (out.modes.off && (out.modes.on || out.modes['on-grace'])) {
      writeReadme();
      console.log('rewrote the kill -9 paragraph of n8n/README.md');
    }
  } finally {
    fs.rmSync(extDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
