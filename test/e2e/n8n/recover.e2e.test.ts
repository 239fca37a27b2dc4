/**
 * Issue 36, "Done when": recovery through n8n's Webhook (Raw Body) → Certificate Service
 * (Delivery: Verify) path in a real n8n 2.41.1. The sandbox's retries are sped up (timeScale),
 * the workflow is unpublished (n8n answers 404) through all 7 attempts of the outage's
 * deliveries, then published again and `certsvc events recover` forwards them: Verify outputs
 * each missed event once and none that ran before; a second recover outputs nothing.
 */
import { randomUUID } from 'node:crypto';
import { ensureBuilt } from '../../support/built';
import { runCli } from '../../support/cli';
import { startPackageStack, type PackageStack } from './harness';
import { verifiedItems, verifyWorkflow } from './workflows';

jest.setTimeout(180_000);

describe('recovery into n8n: Webhook → Delivery: Verify', () => {
  let stack: PackageStack;

  beforeAll(async () => {
    await ensureBuilt();
    stack = await startPackageStack({ rateLimit: false, timeScale: 0.00001, mailDelayMs: 1 });
  }, 15 * 60_000);

  afterAll(() => stack?.stop());

  it('each missed event executes once; none from before the outage; a second recover executes nothing', async () => {
    const { sb, n8n, core } = stack;
    const hookPath = randomUUID();
    const url = `${n8n.baseUrl}/webhook/${hookPath}`;
    const sub = await core.createSubscription({ url, events: ['certificate.issued', 'certificate.sent', 'certificate.failed'] });
    // Verify makes no API call, but n8n publishes a node only with its credential set.
    const wf = await n8n.createWorkflow(verifyWorkflow('e2e: recover into verify', hookPath, sub.secret!, await stack.credential()));
    /** `<type> <recipient id>` of every item Verify output, once `want` executions have ended (all successful). */
    const verified = async (want: number) => {
      const { runs, items } = await verifiedItems(n8n, wf.id, want);
      expect(runs.every((e: any) => e.status === 'success')).toBe(true);
      return items.map((i) => `${String(i.type).slice(12)} ${i.recipientId}`);
    };
    const ended = (outcome: string, n: number) =>
      sb.controls.waitForDeliveries((log) => log.filter((a) => a.subscriptionId === sub.id && a.outcome === outcome).length >= n, 60_000);
    const batchId = (await core.createBatch({ title: 'n8n recovery', designId: 'design_classic' })).id;
    const people = (n: number, domain: string, tag: string) => Array.from({ length: n }, (_, i) => ({ name: `${tag}${i}`, email: `${tag}${i}@${domain}` }));

    await n8n.publish(wf.id);
    await core.issueBulk(batchId, [...people(2, 'example.com', 'early'), ...people(1, 'bounce.test', 'early-bounce')], { send: true });
    await ended('succeeded', 6);
    const before = await verified(6);
    expect(before).toHaveLength(6);

    await new Promise((r) => setTimeout(r, 1100));
    const since = new Date().toISOString();
    await n8n.unpublish(wf.id); // n8n answers 404: the service retries, 7 attempts, then gives up
    await core.issueBulk(batchId, [...people(8, 'example.com', 'late'), ...people(4, 'bounce.test', 'late-bounce')], { send: true });
    const log = await ended('failed', 24);
    const failed = log.filter((a) => a.subscriptionId === sub.id && a.outcome === 'failed');
    expect(failed.every((a) => a.attempt === 7)).toBe(true);
    const missed = sb.controls.events().filter((e) => failed.some((a) => a.eventId === e.id)).map((e) => `${e.type.slice(12)} ${e.recipientId}`);
    expect(new Set(missed).size).toBe(24);

    await n8n.publish(wf.id);
    const env = { CERTSVC_API_KEY: sb.apiKey!, CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_WEBHOOK_SECRET: sub.secret! };
    const first = await runCli(['events', 'recover', '--since', since, '--forward-to', url], env);
    // The 24 missed, and the failure from before (issued within 7 days of --since): Verify drops it.
    expect([first.code, JSON.parse(first.stdout)]).toEqual([0, { found: 25, forwarded: 25, answered2xx: 25, failed: 0, notDelivered: 0 }]);
    const afterFirst = await verified(6 + 25);
    expect(afterFirst.slice(0).sort()).toEqual([...before, ...missed].sort());

    const second = await runCli(['events', 'recover', '--since', since, '--forward-to', url], env);
    expect(second.code).toBe(0);
    expect((await verified(6 + 25 + 25)).sort()).toEqual([...before, ...missed].sort());
    await n8n.unpublish(wf.id);
  });
});
