// The same flow through the built Zapier app (zapier/dist), driven by zapier-platform-core's
// own Lambda handler, as Zapier runs it: auth test → create batch → subscribe a REST hook →
// issue one and in bulk → send → searches → the signed delivery through perform → unsubscribe.
import zapier from 'zapier-platform-core';
import type { Sandbox } from '@certificate-service/sandbox';
import { startReceiver } from '@certificate-service/sandbox/testing';
import { zapierHeaders } from '../test/zapier/helpers';

type Handler = (event: Record<string, unknown>) => Promise<{ results: unknown }>;
const createAppHandler = (zapier as unknown as { createAppHandler: (app: object) => Handler }).createAppHandler;

export async function runZapierFlow(sandbox: Sandbox, step: (label: string, detail: string) => void): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const handler = createAppHandler(require('../zapier'));
  const authData = { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl };
  const run = async <T>(method: string, bundle: Record<string, unknown> = {}) => {
    // Zapier's per-run log lines (z.console) go to its log viewer in production; mute them here.
    const log = console.log;
    console.log = () => {};
    try {
      return (await handler({ command: 'execute', method, calledFromCli: true, bundle: { authData, inputData: {}, ...bundle } })).results as T;
    } finally {
      console.log = log;
    }
  };
  const receiver = await startReceiver();
  try {
    const me = await run<{ username: string }>('authentication.test');
    step('authentication.test', `connection label "${me.username}"`);

    const designs = await run<Array<{ id: string }>>('triggers.design_list.operation.perform');
    const batch = await run<{ id: string }>('creates.create_batch.operation.perform', { inputData: { title: 'Zapier demo', design_id: designs[0].id } });
    step('creates.create_batch', batch.id);

    const sub = await run<{ id: string }>('triggers.certificate_issued.operation.performSubscribe', { targetUrl: receiver.url, inputData: { batch_id: batch.id } });
    step('certificate_issued: performSubscribe', `${sub.id} → local receiver`);

    const one = await run<{ certificateId: string; shareToken: string; id: string }>('creates.issue_certificate.operation.perform', {
      inputData: { batch_id: batch.id, name: 'Grace Hopper', email: 'grace@example.com', data: { course: 'Compilers' } },
    });
    step('creates.issue_certificate', one.certificateId);

    const lines = Array.from({ length: 150 }, (_, i) => ({ name: `Zap learner ${i + 1}`, email: `zap${i + 1}@example.com` }));
    const bulk = await run<{ issuedCount: number; failedCount: number }>('creates.issue_certificates_bulk.operation.perform', { inputData: { batch_id: batch.id, recipients: lines, variable__course: 'Compilers' } });
    step('creates.issue_certificates_bulk', `${bulk.issuedCount}/${lines.length} issued, ${bulk.failedCount} failed`);

    await run('creates.send_certificate.operation.perform', { inputData: { batch_id: batch.id, recipient_id: one.id } });
    step('creates.send_certificate', one.id);

    const byId = await run<Array<{ id: string }>>('searches.find_certificate.operation.perform', { inputData: { certificate_id: one.certificateId } });
    const byToken = await run<Array<{ id: string }>>('searches.find_certificate_by_token.operation.perform', { inputData: { share_token: one.shareToken } });
    if (byId[0]?.id !== one.id || byToken[0]?.id !== one.id) throw new Error('Zapier searches returned a different recipient');
    step('searches: by ID and by token', `both found ${one.id}`);

    const deliveries = await receiver.waitFor(1 + lines.length, 10_000);
    let accepted = 0;
    for (const d of deliveries) {
      const rawRequest = { method: 'POST', querystring: '', headers: zapierHeaders(d.headers), content: d.rawBody };
      const items = await run<unknown[]>('triggers.certificate_issued.operation.perform', { subscribeData: sub, inputData: { batch_id: batch.id }, rawRequest });
      accepted += items.length;
    }
    if (accepted !== deliveries.length) throw new Error(`perform accepted ${accepted} of ${deliveries.length} genuine deliveries`);
    step('certificate_issued: perform', `${accepted}/${deliveries.length} signed deliveries verified and emitted`);

    await run('triggers.certificate_issued.operation.performUnsubscribe', { subscribeData: sub });
    step('certificate_issued: performUnsubscribe', `${sandbox.controls.subscriptions().length} subscriptions left`);
  } finally {
    await receiver.close();
  }
}
