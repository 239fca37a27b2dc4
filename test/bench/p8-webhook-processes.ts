// P8: trigger deliveries per second with 2 `n8n webhook` processes vs 1, on the same queue-mode
// instance (main, 2 workers, 2 webhook processes). Two nginx in front of it: one spreads
// deliveries over both webhook processes (hash on X-Service-Delivery, as the README says), the
// other sends everything to the first one. The same signed deliveries (unique ids), the same
// concurrency; rounds alternate which goes first; median of the per-round ratios.
//
// Two rates per round:
//   accepted/s = deliveries / time until every delivery was answered: the webhook processes'
//                own work (signature check, dedupe, handing the execution to Redis)
//   executed/s = deliveries / time until the last of their executions ended (the workers too)
import fs from 'node:fs';
import { signPayload, type WebhookEvent } from '@certificate-service/sdk/core';
import { createClient } from '@certificate-service/sdk';
import { copyPackageToExtensionsDir, ensurePackageBuilt, PACKAGE_DIR } from '../e2e/n8n/package-setup';
import { startQueueN8n, type QueueN8n } from '../e2e/queue/harness';
import { triggerWorkflow } from '../e2e/n8n/workflows';
import { newExecutions } from '../e2e/n8n/harness';
import { until } from '../support/until';
import { createSandbox } from '@certificate-service/sandbox';
import { pool } from './common';
import { median, round, type Row } from './measure';

interface RoundResult {
  side: 'two' | 'one';
  deliveries: number;
  rejected: number;
  executions: number;
  acceptedPerSecond: number;
  executedPerSecond: number;
}

export async function runP8(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<Row[]> {
  const log = options.log ?? (() => {});
  const perRound = options.quick ? 60 : 300;
  const rounds = options.quick ? 1 : 3;
  const concurrency = 16;
  const sb = await createSandbox({ rateLimit: false, timeScale: 0.0001 });
  ensurePackageBuilt();
  const ext = copyPackageToExtensionsDir(PACKAGE_DIR);
  let q: QueueN8n | undefined;
  try {
    const ws = sb.controls.createWorkspace({ quota: 100 });
    log('P8: starting n8n in queue mode (main, 2 workers, 2 webhook processes, nginx) …');
    q = await startQueueN8n({ customExtensionsDir: ext, workers: 2, webhooks: 2, concurrency: 10 });
    const cred = await q.main.createCredential('certificateServiceApi', 'P8', { apiKey: ws.apiKey, baseUrl: sb.url });
    const wf = await q.main.createWorkflow(triggerWorkflow('P8 trigger', 'p8-trigger', { id: cred.id, name: 'P8' }));
    await q.main.publish(wf.id);
    const [subscription] = sb.controls.subscriptions(ws.workspaceId);
    const single = await q.addBalancer('hash', [q.webhooks[0].port]);
    const urls = { two: subscription.url, one: subscription.url.replace(q.url, single.url) };

    const core = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const batch = await core.createBatch({ title: 'P8', designId: 'design_classic' });
    const recipient = await core.issueCertificate(batch.id, { name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'Scale-out' } });
    let seq = 0;
    let seen = 0;

    const round_ = async (side: RoundResult['side'], count: number): Promise<RoundResult> => {
      const bodies = Array.from({ length: count }, () => {
        const n = ++seq;
        // One certificate per delivery: a receiver claims the occurrence, so one certificate's deliveries would all be duplicates.
        const event: WebhookEvent = { id: `whe_p8_${n}`, type: 'certificate.issued', createdAt: new Date().toISOString(), data: { ...recipient, id: `${recipient.id}_p8_${n}` } };
        const body = JSON.stringify(event);
        return { body, headers: { 'Content-Type': 'application/json', 'X-Service-Event': event.type, 'X-Service-Delivery': `whd_p8_${n}`, ...signPayload(subscription.secret, body) } };
      });
      let rejected = 0;
      const start = Date.now();
      await pool(count, concurrency, async (i) => {
        const res = await fetch(urls[side], { method: 'POST', headers: bodies[i].headers, body: bodies[i].body });
        await res.text();
        if (res.status !== 200) rejected++;
      });
      const answered = Date.now();
      const fresh = await until(`P8 ${side}: ${count - rejected} finished executions`, async () => {
        const all = await newExecutions(q!.main, wf.id, seen);
        return all.length >= count - rejected && all.every((e) => e.stoppedAt) && all;
      }, 300_000, 250);
      seen = Math.max(seen, ...fresh.map((e) => e.id));
      const end = Math.max(...fresh.map((e) => Date.parse(String(e.stoppedAt))));
      return {
        side,
        deliveries: count,
        rejected,
        executions: fresh.length,
        acceptedPerSecond: (count / (answered - start)) * 1000,
        executedPerSecond: (count / (end - start)) * 1000,
      };
    };

    for (const side of ['two', 'one'] as const) await round_(side, Math.min(30, perRound)); // warm-up, not counted
    const results: RoundResult[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 ? (['one', 'two'] as const) : (['two', 'one'] as const)) {
        const res = await round_(side, perRound);
        log(`P8 round ${r + 1} ${side}: accepted ${round(res.acceptedPerSecond, 1)}/s, executed ${round(res.executedPerSecond, 1)}/s (${res.executions} executions, ${res.rejected} rejected)`);
        results.push(res);
      }
    }
    const ratio = (key: 'acceptedPerSecond' | 'executedPerSecond') =>
      median(Array.from({ length: rounds }, (_, r) => {
        const pair = results.slice(2 * r, 2 * r + 2);
        return pair.find((x) => x.side === 'two')![key] / pair.find((x) => x.side === 'one')![key];
      }));
    const rate = (side: RoundResult['side'], key: 'acceptedPerSecond' | 'executedPerSecond') => median(results.filter((x) => x.side === side).map((x) => x[key]));
    const clean = results.every((x) => x.rejected === 0 && x.executions === x.deliveries);
    return [
      {
        id: 'P8',
        what: `trigger deliveries/s, 2 webhook processes vs 1 (queue mode, ${perRound} × ${rounds} rounds, concurrency ${concurrency})`,
        ours: `2 processes: accepted ${round(rate('two', 'acceptedPerSecond'), 1)}/s, executed ${round(rate('two', 'executedPerSecond'), 1)}/s`,
        baseline: `1 process: accepted ${round(rate('one', 'acceptedPerSecond'), 1)}/s, executed ${round(rate('one', 'executedPerSecond'), 1)}/s`,
        ratio: round(ratio('acceptedPerSecond')),
        target: 'informational (scaling of the webhook tier on this machine)',
        met: null,
        note: `Ratio of accepted/s (the webhook processes' own work); executed/s ratio ${round(ratio('executedPerSecond'))} (workers and Postgres included). Every process shares one machine's 2 CPUs with the workers, main, Postgres, Redis and nginx, so a second webhook process adds CPU time only where the first left some idle.${clean ? '' : ' Not clean: some deliveries were rejected or did not run exactly once.'}`,
        extra: {
          perRound,
          rounds,
          concurrency,
          executedRatio: round(ratio('executedPerSecond'), 3),
          roundResults: results.map((x) => ({ ...x, acceptedPerSecond: round(x.acceptedPerSecond, 1), executedPerSecond: round(x.executedPerSecond, 1) })),
          allAcceptedAndExecutedOnce: clean,
        },
      },
    ];
  } finally {
    await q?.stop();
    await sb.close();
    fs.rmSync(ext, { recursive: true, force: true });
  }
}
