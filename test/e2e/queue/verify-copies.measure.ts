// How often copies of one occurrence both pass Webhook (Raw Body) → Delivery: Verify in real
// queue mode (Redis, Postgres, main, 2 workers with --concurrency=10, 2 webhook processes behind
// nginx hashing on X-Service-Delivery), with Verify's options as saved:
//   default: {} (no option added), off: Record Delivery IDs false, on: Record Delivery IDs true.
// Each variant is its own published workflow (its own memory per worker and its own row in n8n's
// deduplication store) and gets the same copies, one variant at a time.
//
// Scenarios (verify-copies.ts builds the copies):
//   together, recoveredFirst / serviceFirst: the recovered copy and the service's late copy of
//     one occurrence sent GAP_MS apart, without waiting for the first answer; one occurrence at a
//     time, PAUSE_MS between them (the workers are otherwise idle);
//   flood, recoveredFirst / serviceFirst: the same while each workflow takes a flood (P9's flood
//     code: a bulk issue with send into a workspace subscribed to it, the sender capped at 8 in
//     flight per subscription);
//   serviceDuplicates: the sandbox sends every delivery twice at once (same delivery id);
//   workerRestart: the recovered copies, then the workers that ran them restarted, then the
//     service's copies.
// Half the occurrences are certificate.issued, half certificate.failed (a bounce). Figures go to
// verify-copies.json under --label, with the machine's load average.
//
//   npx tsx test/e2e/queue/verify-copies.measure.ts --label <name> [--pairs 20] [--flood 300] [--package <dir>]
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@certificate-service/sdk';
import { createSandbox } from '@certificate-service/sandbox';
import { copyPackageToExtensionsDir, ensurePackageBuilt, PACKAGE_DIR } from '../n8n/package-setup';
import { verifyWorkflow } from '../n8n/workflows';
import { hasEnded } from '../../support/deliver';
import { until } from '../../support/until';
import { flood, type FloodResult } from '../../bench/p9-flood';
import { startQueueN8n } from './harness';
import { captureReceiver, lastExecutionId, occurrencesOf, outcomes, send, sendTogether, summarize, verifyRuns, type Occurrence, type VerifyRun } from './verify-copies';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const LABEL = arg('label', 'run');
/** A folder holding the package's package.json and a built dist/ (another build, to compare); default the repo's n8n/. */
const PACKAGE = arg('package', PACKAGE_DIR);
const PAIRS = Number(arg('pairs', '20'));
const FLOOD = Number(arg('flood', '150'));
const DUPLICATES = Number(arg('duplicates', '20'));
const RESTART = Number(arg('restart', '6'));
const GAP_MS = 5;
const PAUSE_MS = 300;
// Rejected copies are output with the reason (not dropped), so a copy Verify refused is told from one it dropped as a duplicate.
const VARIANTS: Record<string, Record<string, unknown>> = { default: { onRejected: 'output' }, off: { onRejected: 'output', recordInN8n: false }, on: { onRejected: 'output', recordInN8n: true } };
const OUT = path.join(__dirname, 'verify-copies.json');

const loadavg = () => os.loadavg().map((x) => Math.round(x * 100) / 100);
const log = (line: string) => console.log(`[verify-copies ${LABEL}] ${line}`);

async function main() {
  if (PACKAGE === PACKAGE_DIR) ensurePackageBuilt();
  const ext = copyPackageToExtensionsDir(PACKAGE);
  const sb = await createSandbox({ rateLimit: false, timeScale: 0.002, mailDelayMs: 5, deliveryConcurrency: 8, maxLogEntries: 500_000 });
  const capture = await captureReceiver();
  const figures: Record<string, unknown> = { loadAtStart: loadavg(), commit: execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim(), package: PACKAGE === PACKAGE_DIR ? 'n8n/' : PACKAGE, gapMs: GAP_MS, pauseMs: PAUSE_MS };
  const t0 = Date.now();
  const q = await startQueueN8n({ customExtensionsDir: ext, workers: 2, webhooks: 2, concurrency: 10 });
  figures.topologyStartSeconds = Math.round((Date.now() - t0) / 1000);
  try {
    // The occurrences: certificates issued with send in a workspace subscribed to the capture receiver.
    const wsC = sb.controls.createWorkspace({ quota: 100_000 });
    const coreC = createClient({ baseUrl: sb.baseUrl, apiKey: wsC.apiKey });
    await coreC.createSubscription({ url: capture.url, events: ['certificate.issued', 'certificate.failed'] });
    const batchC = await coreC.createBatch({ title: 'copies', designId: 'design_classic' });
    const since = Date.now() - 1_000;
    const n = 4 * PAIRS + RESTART;
    const people = Array.from({ length: n }, (_, i) => ({ name: `Copy ${i}`, email: i % 2 ? `copy${i}@bounce.test` : `copy${i}@example.com` }));
    for (let from = 0; from < n; from += 100) await coreC.issueBulk(batchC.id, people.slice(from, from + 100), { send: true });
    await until('every issued and failed delivery captured', () => capture.copies.size >= n + n / 2, 120_000, 200);
    const found = await occurrencesOf(coreC, batchC.id, since, capture.copies);
    const issued = found.filter((o) => o.type === 'certificate.issued' && !o.service.event.data.email.endsWith('@bounce.test'));
    const failed = found.filter((o) => o.type === 'certificate.failed');
    if (issued.length < n / 2 || failed.length < n / 2) throw new Error(`expected ${n / 2} issued and ${n / 2} failed occurrences, got ${issued.length} and ${failed.length}`);
    const pool: Occurrence[] = Array.from({ length: n }, (_, i) => (i % 2 ? failed : issued)[Math.floor(i / 2)]);
    const take = (k: number) => pool.splice(0, k);

    // One published Webhook → Verify workflow per variant, each subscribed (for its flood) from a workspace of its own.
    const credential = { ...(await q.main.createCredential('certificateServiceApi', 'cs', { apiKey: wsC.apiKey, baseUrl: sb.url })), name: 'cs' };
    const variants: Array<{ name: string; url: string; secret: string; workflowId: string; subscriptionId: string; apiKey: string; core: ReturnType<typeof createClient> }> = [];
    for (const [name, options] of Object.entries(VARIANTS)) {
      const ws = sb.controls.createWorkspace({ quota: 100_000 });
      const core = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
      const hookPath = `verify-copies-${name}`;
      const url = `${q.url}/webhook/${hookPath}`;
      const sub = await core.createSubscription({ url, events: ['certificate.issued', 'certificate.sent'] });
      const wf = await q.main.createWorkflow(verifyWorkflow(`Verify (${name})`, hookPath, sub.secret, credential, options));
      await q.main.publish(wf.id);
      variants.push({ name, url, secret: sub.secret, workflowId: wf.id, subscriptionId: sub.id, apiKey: ws.apiKey, core });
    }
    type Variant = (typeof variants)[number];
    /**
     * The executions of these delivery ids in a variant's workflow after execution `from`, once
     * `expected` of them have ended (a flood's own executions may still be running), or after 5
     * minutes; then once more 3 s later, for any copy that came late.
     */
    const settled = async (v: Variant, from: number, deliveryIds: string[], expected: number): Promise<VerifyRun[]> => {
      const ours = async () => (await verifyRuns(q.main, v.workflowId, q.workers, from)).filter((r) => r.deliveryId !== undefined && deliveryIds.includes(r.deliveryId));
      await until(`${expected} executions of the copies (${v.name})`, async () => {
        const runs = await ours();
        return runs.length >= expected && runs.every(hasEnded);
      }, 300_000, 2_000).catch((error: Error) => log(error.message));
      await sleep(3_000);
      return ours();
    };
    const lastIds = async () => Object.fromEntries(await Promise.all(variants.map(async (v) => [v.name, await lastExecutionId(q.main, v.workflowId)] as const)));
    const record = (key: string, value: unknown) => {
      figures[key] = value;
      log(`${key}: ${JSON.stringify(value)}`);
    };

    type Order = 'recoveredFirst' | 'serviceFirst';
    /** Each occurrence's two copies together (in `orderOf` its index), to each variant in turn; then what ran, per variant and order. */
    async function pairs(list: Occurrence[], orderOf: (i: number) => Order, during?: () => boolean) {
      const from = await lastIds();
      const load = [loadavg()];
      const statuses: Record<string, number> = {};
      let sentDuring = 0;
      for (const [i, o] of list.entries()) {
        const [first, second] = orderOf(i) === 'recoveredFirst' ? [o.recovered, o.service] : [o.service, o.recovered];
        if (during?.()) sentDuring++;
        for (let j = 0; j < variants.length; j++) {
          const v = variants[(i + j) % variants.length];
          for (const a of await sendTogether(v.url, v.secret, first, second, GAP_MS)) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
          await sleep(PAUSE_MS);
        }
      }
      const out: Record<Order, Record<string, unknown>> = { recoveredFirst: {}, serviceFirst: {} };
      for (const v of variants) {
        const runs = await settled(v, from[v.name], list.flatMap((o) => [o.service.deliveryId, o.recovered.deliveryId]), 2 * list.length);
        for (const order of ['recoveredFirst', 'serviceFirst'] as const) {
          const mine = list.filter((_, i) => orderOf(i) === order);
          if (!mine.length) continue;
          const result = outcomes(mine.map((o) => ({ key: o.key, deliveryIds: [o.service.deliveryId, o.recovered.deliveryId] })), runs);
          const idOf = (c: { deliveryId: string }) => runs.find((r) => r.deliveryId === c.deliveryId)?.id ?? Infinity;
          const firstSentStoredFirst = mine.filter((o) => (order === 'recoveredFirst' ? idOf(o.recovered) < idOf(o.service) : idOf(o.service) < idOf(o.recovered))).length;
          out[order][v.name] = { ...summarize(result), firstSentStoredFirst, ranTwiceKeys: result.filter((r) => r.ran > 1).map((r) => r.key) };
        }
      }
      load.push(loadavg());
      const common = { answers: statuses, ...(during ? { sentDuringFlood: sentDuring } : {}), load };
      return { recoveredFirst: { ...out.recoveredFirst, ...common }, serviceFirst: { ...out.serviceFirst, ...common } };
    }

    record('together.recoveredFirst', (await pairs(take(PAIRS), () => 'recoveredFirst')).recoveredFirst);
    record('together.serviceFirst', (await pairs(take(PAIRS), () => 'serviceFirst')).serviceFirst);

    // A flood into each workflow at once, the copies meanwhile.
    const webhookLogs = () => q.webhooks.map((w) => w.logs()).join('\n');
    const succeededBefore = sb.controls.deliveries().filter((d) => d.outcome === 'succeeded').length;
    const beforeFlood = await lastIds();
    let flooding = true;
    const floods = Promise.all(
      variants.map((v) => flood(q.main, sb, { path: 'verify', workflowId: v.workflowId, subscriptionId: v.subscriptionId, apiKey: v.apiKey, outputNode: 'Verify' }, FLOOD, (line) => log(`flood ${v.name}: ${line}`), webhookLogs)),
    ).finally(() => (flooding = false));
    await until('the floods under way', () => sb.controls.deliveries().filter((d) => d.outcome === 'succeeded').length > succeededBefore + 200, 120_000, 200);
    const floodLoad = [loadavg()];
    // Both orders in turn, so they see the same flood.
    const duringFlood = await pairs(take(2 * PAIRS), (i) => (i % 2 ? 'serviceFirst' : 'recoveredFirst'), () => flooding);
    const floodResults: FloodResult[] = await floods;
    floodLoad.push(loadavg());
    record('flood.recoveredFirst', duringFlood.recoveredFirst);
    record('flood.serviceFirst', duringFlood.serviceFirst);
    record(
      'flood.itself',
      Object.fromEntries(floodResults.map((f, i) => [variants[i].name, { certificates: f.certificates, deliveries: f.deliveries, executions: f.executions, duplicates: f.duplicates, lost: f.lost, attemptsPerDelivery: f.attemptsPerDelivery, allExecutedSeconds: f.allExecutedSeconds, settled: f.settled }])),
    );
    figures.floodLoad = floodLoad;
    // What Verify refused during the flood (pairs and flood deliveries): a copy whose execution ran over 300 s after it was signed is refused as stale.
    const refused: Record<string, Record<string, number>> = {};
    for (const v of variants) {
      refused[v.name] = {};
      for (const r of await verifyRuns(q.main, v.workflowId, q.workers, beforeFlood[v.name])) if (r.rejected) refused[v.name][r.rejected] = (refused[v.name][r.rejected] ?? 0) + 1;
    }
    record('flood.refusedByVerify', refused);

    // The service's own duplicates: every delivery twice at once, one delivery id.
    {
      const load = [loadavg()];
      sb.controls.setDuplicateDeliveries(2);
      const out: Record<string, unknown> = {};
      const recipients = new Set<string>();
      const from = await lastIds();
      for (const v of variants) {
        const batch = await v.core.createBatch({ title: 'duplicates', designId: 'design_classic' });
        const issuedNow = await v.core.issueBulk(batch.id, Array.from({ length: DUPLICATES }, (_, i) => ({ name: `Dup ${i}`, email: `dup${i}@example.com` })));
        for (const o of issuedNow) if (o.ok && 'recipient' in o && o.recipient) recipients.add(o.recipient.id);
      }
      const events = () => sb.controls.events().filter((e) => recipients.has(e.recipientId));
      // Both copies of each delivery (copy 0 and 1, one delivery id) answered.
      await sb.controls.waitForDeliveries((l) => l.filter((d) => d.outcome === 'succeeded' && events().some((e) => e.id === d.eventId)).length >= 2 * events().length && events().length === variants.length * DUPLICATES, 300_000);
      sb.controls.setDuplicateDeliveries(1);
      for (const v of variants) {
        const ids = events().flatMap((e) => e.deliveryIds);
        const runs = await settled(v, from[v.name], ids, ids.length / variants.length * 2);
        const result = outcomes(events().map((e) => ({ key: e.recipientId, deliveryIds: e.deliveryIds })), runs).filter((r) => r.executions > 0);
        out[v.name] = { ...summarize(result), ranTwiceKeys: result.filter((r) => r.ran > 1).map((r) => r.key) };
      }
      load.push(loadavg());
      record('serviceDuplicates', { ...out, load });
    }

    // A restart between two copies: the recovered copies, the workers that ran them restarted, the service's copies.
    {
      const list = take(RESTART);
      const load = [loadavg()];
      const from = await lastIds();
      for (const o of list) for (const v of variants) await send(v.url, v.secret, o.recovered);
      const firstRuns = (await Promise.all(variants.map((v) => settled(v, from[v.name], list.map((o) => o.recovered.deliveryId), list.length)))).flat();
      const restarted = [...new Set(firstRuns.map((r) => r.worker))].filter((w) => w >= 0).sort();
      const t = Date.now();
      for (const w of restarted) await q.workers[w].restart();
      const restartSeconds = Math.round((Date.now() - t) / 1000);
      for (const o of list) for (const v of variants) await send(v.url, v.secret, o.service);
      const out: Record<string, unknown> = {};
      for (const v of variants) {
        const runs = await settled(v, from[v.name], list.flatMap((o) => [o.service.deliveryId, o.recovered.deliveryId]), 2 * list.length);
        const result = outcomes(list.map((o) => ({ key: o.key, deliveryIds: [o.service.deliveryId, o.recovered.deliveryId] })), runs);
        out[v.name] = { ...summarize(result), ranTwiceKeys: result.filter((r) => r.ran > 1).map((r) => r.key) };
      }
      load.push(loadavg());
      record('workerRestart', { ...out, restartedWorkers: restarted, restartSeconds, load });
    }
  } finally {
    figures.loadAtEnd = loadavg();
    await q.stop();
    await sb.close();
    await capture.close();
    fs.rmSync(ext, { recursive: true, force: true });
    const previous = fs.existsSync(OUT) ? (JSON.parse(fs.readFileSync(OUT, 'utf8')) as Record<string, unknown>) : {};
    fs.writeFileSync(OUT, `${JSON.stringify({ ...previous, [LABEL]: { at: new Date().toISOString(), cpus: os.cpus().length, figures } }, null, 2)}\n`);
    log(`wrote ${path.relative(process.cwd(), OUT)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
