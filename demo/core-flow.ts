// The scripted flow, through the SDK's createClient (its default transport, undici):
// verify key → create batch → issue one and bulk → send → look up by ID and token →
// subscribe a local receiver → receive and verify signed events → unsubscribe.
import { checkDelivery, createClient, type EventType } from '@certificate-service/sdk';
import type { Sandbox } from '@certificate-service/sandbox';
import { startReceiver } from '@certificate-service/sandbox/testing';

/** The flow's heading in `npm start`'s report: what sends its requests (its test: test/demo/core-flow.test.ts). */
export const CORE_FLOW_TITLE = 'Shared core (createClient, undici transport)';

export async function runCoreFlow(sandbox: Sandbox, step: (label: string, detail: string) => void): Promise<void> {
  const client = createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey });
  const receiver = await startReceiver();
  try {
    const workspace = await client.auth();
    step('Verify API key', `workspace "${workspace.username}" (${workspace.workspaceId})`);

    const events: EventType[] = ['certificate.issued', 'certificate.sent', 'certificate.failed', 'certificate.viewed'];
    const subscription = await client.createSubscription({ url: receiver.url, events });
    const secret = subscription.secret;
    if (!secret) throw new Error('the service returned no signing secret');
    step('Subscribe a local receiver', `${subscription.id} for ${events.length} event types (secret stored, not shown)`);

    const design = (await client.listDesigns()).items[0];
    const batch = await client.createBatch({ title: `Demo batch ${new Date().toISOString()}`, designId: design.id });
    step('Create batch', `${batch.id} "${batch.title}" with design ${design.id}`);

    // The design's variables (the sandbox lists Minimal first: it requires `course`). A key it does
    // not list would make issueMany refuse the item, so the data below is only `course`.
    const { source, variables } = await client.getBatchVariables(batch.id);
    step('Read the design\'s variables', variables.length ? `${variables.map((v) => `${v.name}${v.required ? ' (required)' : ''}`).join(', ')} (from the ${source === 'design' ? 'design' : 'batch'})` : 'none listed');

    const one = await client.issueCertificate(batch.id, { name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'Analytical Engines' } });
    step('Issue one certificate', `${one.certificateId} for ${one.email}`);

    const people = Array.from({ length: 120 }, (_, i) => ({ batchId: batch.id, name: `Learner ${i + 1}`, email: `learner${i + 1}@example.com`, data: { course: 'Analytical Engines' } }));
    people.push({ batchId: batch.id, name: 'Bounce Test', email: 'someone@bounce.test', data: { course: 'Analytical Engines' } });
    const before = sandbox.controls.counters().requests.total;
    const outcomes = await client.issueMany(people);
    const issued = outcomes.filter((o) => o.ok).length;
    step('Issue in bulk', `${issued}/${people.length} issued in ${sandbox.controls.counters().requests.total - before} requests (≤100 per call)`);

    await client.sendCertificate(batch.id, one.id);
    const bounce = outcomes[outcomes.length - 1];
    if (bounce.ok) await client.sendCertificate(batch.id, bounce.recipient.id);
    step('Send certificate emails', `${one.email} and a simulated bounce`);

    const byId = await client.getCertificate(one.certificateId);
    const byToken = await client.getCertificateByToken(one.shareToken);
    if (byId.id !== one.id || byToken.id !== one.id) throw new Error('lookups returned a different recipient');
    // The viewer's path, not its URL: the report outlives the sandbox (demo/next-steps.ts).
    step('Look up by ID and share token', `${byId.certificateId} → ${new URL(byToken.certUrl).pathname}`);

    await fetch(one.certUrl, { headers: { 'User-Agent': 'demo-viewer' } });
    const expected = people.length + 1 + 2 + 1; // issued + sent/failed + viewed
    const received = await receiver.waitFor(expected, 10_000);
    const verified = received.map((r) => checkDelivery(r.rawBody, r.headers, secret));
    const ok = verified.filter((v) => v.ok);
    const byType = new Map<string, number>();
    for (const v of ok) if (v.ok) byType.set(v.event.type, (byType.get(v.event.type) ?? 0) + 1);
    if (ok.length !== received.length) throw new Error(`${received.length - ok.length} deliveries failed verification`);
    step('Receive and verify signed events', `${ok.length}/${received.length} verified: ${[...byType].map(([t, n]) => `${n} ${t.replace('certificate.', '')}`).join(', ')}`);

    await client.deleteSubscription(subscription.id);
    const left = (await client.listSubscriptions()).items.length;
    step('Unsubscribe', `${subscription.id} deleted, ${left} subscriptions left`);
  } finally {
    await receiver.close();
  }
}
