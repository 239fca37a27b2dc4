// P3: trigger throughput in a real n8n 2.41.1 (test/e2e/n8n/harness.ts). Deliveries per
// second that a published workflow made of our Certificate Service Trigger accepts and
// executes, against a workflow made of n8n's built-in Webhook node on the same instance:
// the same bodies (signed for ours, and the same headers sent to both), the same number of
// deliveries, the same concurrency. Rounds alternate which side goes first.
//
// A round's rate = deliveries / (time from the first request to the end of the last of
// their executions, read from n8n's execution records). Every delivery must have been
// answered 200 and have exactly one successful execution, or the round does not count.
//
// Our package is loaded the way a user installs it: a copy of n8n/package.json + n8n/dist
// in a folder outside the repo, named by N8N_CUSTOM_EXTENSIONS, so `require('n8n-workflow')`
// resolves to n8n's own copy (n8n puts its module paths on NODE_PATH).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signPayload, type WebhookEvent } from '@certificate-service/sdk/core';
import { createClient } from '@certificate-service/sdk';
import { ensureN8nInstalled, startN8n, type N8nInstance } from '../e2e/n8n/harness';
import { createSandbox } from '../sandbox';
import { N8N_DIST, pool } from './common';
import { median, round, type Row } from './measure';

const EVENTS = ['certificate.issued', 'certificate.sent', 'certificate.failed', 'certificate.viewed'];

interface Side {
  name: 'ours' | 'plain';
  workflowId: string;
  url: string;
  /** Highest execution id already counted. */
  seen: number;
}

interface RoundResult {
  side: Side['name'];
  deliveries: number;
  rejected: number;
  executions: number;
  failedExecutions: number;
  ms: number;
  perSecond: number;
}

/** Copies the built package outside the repo, the way it is installed. */
function installPackage(into: string): void {
  if (!fs.existsSync(path.join(N8N_DIST, 'nodes'))) throw new Error(`${N8N_DIST} is missing: run \`npm run build -w n8n\``);
  const pkg = path.join(into, 'n8n-nodes-certificate-service');
  fs.mkdirSync(pkg, { recursive: true });
  fs.copyFileSync(path.resolve(N8N_DIST, '../package.json'), path.join(pkg, 'package.json'));
  fs.cpSync(N8N_DIST, path.join(pkg, 'dist'), { recursive: true });
}

/** Executions of a workflow newer than `sinceId`, newest first (pages of 250, stops at sinceId). */
async function newExecutions(n8n: N8nInstance, workflowId: string, sinceId: number): Promise<Array<{ id: number; status: string; startedAt: string; stoppedAt: string | null }>> {
  const out: Array<{ id: number; status: string; startedAt: string; stoppedAt: string | null }> = [];
  let cursor: string | undefined;
  for (;;) {
    const q = new URLSearchParams({ workflowId, includeData: 'false', limit: '250', ...(cursor ? { cursor } : {}) });
    const page = await n8n.api<{ data: Array<{ id: string | number; status: string; startedAt: string; stoppedAt: string | null }>; nextCursor?: string | null }>('GET', `/executions?${q}`);
    for (const e of page.data) {
      const id = Number(e.id);
      if (id <= sinceId) return out;
      out.push({ id, status: e.status, startedAt: e.startedAt, stoppedAt: e.stoppedAt });
    }
    if (!page.nextCursor || page.data.length === 0) return out;
    cursor = page.nextCursor;
  }
}

interface Measured {
  results: RoundResult[];
  ratios: number[];
  ratio: number;
  rate: (name: Side['name']) => number;
  clean: boolean;
  forgedStatus: number;
  forgedExecutions: number;
}

/** Starts an n8n (with `env`), publishes both workflows and runs the interleaved rounds. */
async function measure(perRound: number, rounds: number, concurrency: number, env: Record<string, string>, log: (line: string) => void): Promise<Measured> {
  ensureN8nInstalled({ quiet: true });
  const ext = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-p3-ext-'));
  installPackage(ext);
  const sb = await createSandbox({ rateLimit: false, timeScale: 0.0001 });
  let n8n: N8nInstance | undefined;
  try {
    const ws = sb.controls.createWorkspace({ quota: 100 });
    log('starting n8n …');
    n8n = await startN8n({ customExtensionsDir: ext, env });
    const cred = await n8n.createCredential('certificateServiceApi', 'Certificate Service (sandbox)', { apiKey: ws.apiKey, baseUrl: sb.url });

    const ours = await n8n.createWorkflow({
      name: 'P3 ours',
      nodes: [
        {
          id: 'trigger',
          name: 'Certificate Service Trigger',
          type: 'CUSTOM.certificateServiceTrigger',
          typeVersion: 1,
          position: [0, 0],
          webhookId: 'p3-ours',
          parameters: { events: EVENTS, batch: { __rl: true, mode: 'list', value: '' } },
          credentials: { certificateServiceApi: { id: cred.id, name: 'Certificate Service (sandbox)' } },
        },
      ],
      connections: {},
    });
    const plain = await n8n.createWorkflow({
      name: 'P3 plain Webhook',
      nodes: [
        {
          id: 'webhook',
          name: 'Webhook',
          type: 'n8n-nodes-base.webhook',
          typeVersion: 2,
          position: [0, 0],
          webhookId: 'p3-plain',
          parameters: { httpMethod: 'POST', path: 'p3-plain', responseMode: 'onReceived', options: {} },
        },
      ],
      connections: {},
    });
    await n8n.publish(ours.id); // our trigger subscribes its production URL on the sandbox
    await n8n.publish(plain.id);
    const [subscription] = sb.controls.subscriptions(ws.workspaceId);
    if (!subscription) throw new Error('P3: publishing our trigger made no subscription on the sandbox');
    const sides: Side[] = [
      { name: 'ours', workflowId: ours.id, url: subscription.url, seen: 0 },
      { name: 'plain', workflowId: plain.id, url: `${n8n.baseUrl}/webhook/p3-plain`, seen: 0 },
    ];

    // Realistic bodies: a real recipient from the sandbox in the documented envelope.
    const core = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const batch = await core.createBatch({ title: 'P3', designId: 'design_classic' });
    const recipient = await core.issueCertificate(batch.id, { name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'Triggers 101', score: '97' } });
    let seq = 0;
    const delivery = () => {
      const n = ++seq;
      const event: WebhookEvent = { id: `whe_p3_${n}`, type: 'certificate.issued', createdAt: new Date().toISOString(), data: recipient };
      const body = JSON.stringify(event);
      const headers = {
        'Content-Type': 'application/json',
        'User-Agent': 'Service-Webhook/1',
        'X-Service-Event': event.type,
        'X-Service-Delivery': `whd_p3_${n}`,
        ...signPayload(subscription.secret, body),
      };
      return { body, headers };
    };

    const sendAll = async (side: Side, count: number) => {
      const bodies = Array.from({ length: count }, delivery);
      let rejected = 0;
      const start = Date.now();
      await pool(count, concurrency, async (i) => {
        const res = await fetch(side.url, { method: 'POST', headers: bodies[i].headers, body: bodies[i].body });
        await res.text();
        if (res.status !== 200) rejected++;
      });
      return { start, rejected };
    };

    const waitForExecutions = async (side: Side, count: number) => {
      const deadline = Date.now() + 300_000;
      for (;;) {
        const fresh = await newExecutions(n8n!, side.workflowId, side.seen);
        const done = fresh.filter((e) => e.stoppedAt);
        if (fresh.length >= count && done.length === fresh.length) {
          side.seen = Math.max(side.seen, ...fresh.map((e) => e.id));
          return fresh;
        }
        if (Date.now() > deadline) throw new Error(`P3: ${side.name}: ${done.length}/${count} executions finished after 300 s`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };

    const round_ = async (side: Side, count: number): Promise<RoundResult> => {
      const { start, rejected } = await sendAll(side, count);
      const executions = await waitForExecutions(side, count - rejected);
      const end = Math.max(...executions.map((e) => Date.parse(String(e.stoppedAt))));
      const ms = end - start;
      return {
        side: side.name,
        deliveries: count,
        rejected,
        executions: executions.length,
        failedExecutions: executions.filter((e) => e.status !== 'success').length,
        ms,
        perSecond: (count / ms) * 1000,
      };
    };

    // Sanity: a forged delivery is refused by ours and starts nothing.
    const forged = delivery();
    const forgedRes = await fetch(sides[0].url, { method: 'POST', headers: { ...forged.headers, 'X-Service-Signature': forged.headers['X-Service-Signature'].replace(/v1=./, 'v1=0') }, body: forged.body });
    await forgedRes.text();

    // Warm-up (n8n compiles and caches per workflow), not counted.
    for (const side of sides) await round_(side, Math.min(20, perRound));

    const results: RoundResult[] = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? [sides[1], sides[0]] : sides;
      for (const side of order) {
        const res = await round_(side, perRound);
        log(`round ${r + 1} ${side.name}: ${res.deliveries} deliveries, ${res.rejected} rejected, ${res.executions} executions in ${res.ms} ms = ${round(res.perSecond, 1)}/s`);
        results.push(res);
      }
    }
    const forgedExecutions = (await newExecutions(n8n, sides[0].workflowId, sides[0].seen)).length;

    const of = (name: Side['name']) => results.filter((r) => r.side === name);
    // Per-round ratio (the two sides of a round ran back to back), then the median.
    const ratios = Array.from({ length: rounds }, (_, r) => {
      const [a, b] = results.slice(2 * r, 2 * r + 2);
      return (a.side === 'ours' ? a : b).perSecond / (a.side === 'ours' ? b : a).perSecond;
    });
    const clean = results.every((r) => r.rejected === 0 && r.executions === r.deliveries && r.failedExecutions === 0) && forgedRes.status === 401 && forgedExecutions === 0;
    return {
      results,
      ratios,
      ratio: median(ratios),
      rate: (name) => median(of(name).map((r) => r.perSecond)),
      clean,
      forgedStatus: forgedRes.status,
      forgedExecutions,
    };
  } finally {
    await n8n?.stop();
    await sb.close();
    fs.rmSync(ext, { recursive: true, force: true });
  }
}

export async function runP3(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<Row[]> {
  const log = options.log ?? (() => {});
  const perRound = options.quick ? 40 : 300;
  const rounds = options.quick ? 1 : 3;
  const concurrency = 8;
  const m = await measure(perRound, rounds, concurrency, {}, (line) => log(`P3 ${line}`));
  const rows: Row[] = [
    {
      id: 'P3',
      what: `trigger deliveries/s in a real n8n 2.41.1 (${perRound} × ${rounds} rounds, concurrency ${concurrency})`,
      ours: `${round(m.rate('ours'), 1)} deliveries/s (Certificate Service Trigger, verified)`,
      baseline: `${round(m.rate('plain'), 1)} deliveries/s (built-in Webhook node)`,
      ratio: round(m.ratio),
      target: '≥ 0.9',
      met: m.ratio >= 0.9 && m.clean,
      extra: {
        perRound,
        rounds,
        concurrency,
        roundRatios: m.ratios.map((x) => round(x, 3)),
        roundResults: m.results.map((r) => ({ ...r, perSecond: round(r.perSecond, 1) })),
        forgedDeliveryStatus: m.forgedStatus,
        forgedDeliveryExecutions: m.forgedExecutions,
        allAcceptedAndExecutedOnce: m.clean,
      },
    },
  ];
  const why =
    'n8n 2.x lets only its own Webhook node (n8n-nodes-base.webhook with static parameters) skip acquiring an expression isolate for the webhook phase ' +
    '(n8n/dist/webhooks/live-webhooks.js, webhookPhaseNeedsIsolate; N8N_EXPRESSION_ENGINE_ALLOW_WEBHOOK_ISOLATE_SKIP, default true; isolate pool size 1 by default). ' +
    'Every other trigger node, ours included, waits for that isolate on each request. Per delivery our trigger also verifies the HMAC and saves the delivery id ' +
    'in the workflow static data (deduplication), which n8n saves to its database on every delivery (removing that write made no measurable difference in a trial run).';
  if (m.ratio < 0.9) rows[0].note = `Missed by ${round(0.9 - m.ratio)}. ${why}`;
  if (!options.quick) {
    // Control, not the target: the same comparison with the built-in Webhook node's isolate
    // skip turned off, so both sides do the same work in n8n's webhook phase.
    const c = await measure(Math.round(perRound / 2), 2, concurrency, { N8N_EXPRESSION_ENGINE_ALLOW_WEBHOOK_ISOLATE_SKIP: 'false' }, (line) => log(`P3b ${line}`));
    rows.push({
      id: 'P3b',
      what: 'P3 control: same, with N8N_EXPRESSION_ENGINE_ALLOW_WEBHOOK_ISOLATE_SKIP=false (both acquire the isolate)',
      ours: `${round(c.rate('ours'), 1)} deliveries/s`,
      baseline: `${round(c.rate('plain'), 1)} deliveries/s (built-in Webhook node)`,
      ratio: round(c.ratio),
      target: 'informational (explains P3)',
      met: null,
      extra: {
        perRound: Math.round(perRound / 2),
        rounds: 2,
        concurrency,
        roundRatios: c.ratios.map((x) => round(x, 3)),
        roundResults: c.results.map((r) => ({ ...r, perSecond: round(r.perSecond, 1) })),
        forgedDeliveryStatus: c.forgedStatus,
        forgedDeliveryExecutions: c.forgedExecutions,
        allAcceptedAndExecutedOnce: c.clean,
      },
    });
    if (m.ratio < 0.9) rows[0].note += ` With that skip off for both (P3b), the ratio is ${round(c.ratio)}.`;
  }
  return rows;
}
