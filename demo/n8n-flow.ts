// The same flow through the built n8n package (n8n/dist): the node's execute() and the
// trigger's webhook lifecycle, run here in a minimal stand-in for n8n's execution context
// (test/n8n/fake-context.ts) that does real HTTP. `npm test` also runs them inside a real n8n.
import type { IDataObject, INodeExecutionData, INodeType, IWebhookResponseData } from 'n8n-workflow';
import type { Sandbox } from '@certificate-service/sandbox';
import { startReceiver } from '@certificate-service/sandbox/testing';
import { fakeExecute, fakeHook, fakeWebhook, rl, type Params } from '../test/n8n/fake-context';

/* eslint-disable @typescript-eslint/no-require-imports */
const load = (path: string, name: string) => new (require(`../n8n/dist/nodes/${path}`)[name])() as INodeType;

export async function runN8nFlow(sandbox: Sandbox, step: (label: string, detail: string) => void): Promise<void> {
  const node = load('CertificateService/CertificateService.node.js', 'CertificateService');
  const trigger = load('CertificateServiceTrigger/CertificateServiceTrigger.node.js', 'CertificateServiceTrigger');
  const credentials = { apiKey: sandbox.apiKey, baseUrl: sandbox.url }; // no /api/v1: normalised by the core
  const exec = async (params: Params | ((i: number) => Params), items?: INodeExecutionData[]) => {
    const { context } = fakeExecute({ params, items, credentials });
    const output = (await node.execute!.call(context)) as INodeExecutionData[][];
    return output[0].map((item) => item.json);
  };
  const receiver = await startReceiver();
  try {
    const [batch] = await exec({ resource: 'batch', operation: 'create', title: 'n8n demo', design: rl('design_classic') });
    step('Batch → Create', String(batch.id));

    const params = { events: ['certificate.issued'], batch: rl('') };
    const staticData: IDataObject = {};
    const hook = fakeHook({ params, webhookUrl: receiver.url, staticData, credentials });
    const hooks = trigger.webhookMethods!.default!;
    await hooks.create.call(hook.context);
    step('Trigger activation (create)', `subscription ${String(staticData.subscriptionId ?? 'stored')}, exists: ${await hooks.checkExists.call(hook.context)}`);

    const people = Array.from({ length: 250 }, (_, i) => ({ json: { name: `n8n learner ${i + 1}`, email: `n8n${i + 1}@example.com` } }));
    const before = sandbox.controls.counters().requests.total;
    const issued = await exec(
      (i) => ({ resource: 'certificate', operation: 'issue', batch: rl(String(batch.id)), name: people[i].json.name, email: people[i].json.email, specifyData: 'fields', dataFields: { field: [{ name: 'course', value: 'Analytical Engines' }] }, send: false, options: { batchRequests: true } }),
      people,
    );
    step('Certificate → Issue (250 items)', `${issued.filter((r) => r.certificateId).length} issued in ${sandbox.controls.counters().requests.total - before} requests`);

    const first = issued[0];
    await exec({ resource: 'certificate', operation: 'send', batch: rl(String(batch.id)), recipientId: first.id });
    const [byId] = await exec({ resource: 'certificate', operation: 'getByCertificateId', certificateId: first.certificateId });
    const [byToken] = await exec({ resource: 'certificate', operation: 'getByShareToken', certificateLink: first.shareToken });
    if (byId.id !== first.id || byToken.id !== first.id) throw new Error('n8n lookups returned a different recipient');
    step('Send, Get by Certificate ID and by Share Token', `${String(first.certificateId)} found both ways`);

    const deliveries = await receiver.waitFor(people.length, 10_000);
    let started = 0;
    for (const d of [...deliveries, deliveries[0]]) {
      const headers = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k, String(v)]));
      const { context } = fakeWebhook({ params, rawBody: Buffer.from(d.rawBody), headers, staticData });
      const result: IWebhookResponseData = await trigger.webhook!.call(context);
      if (result.workflowData) started++;
    }
    if (started !== deliveries.length) throw new Error(`the trigger started ${started} runs for ${deliveries.length} deliveries + 1 replay`);
    step('Trigger webhook()', `${started} runs for ${deliveries.length} signed deliveries; the replayed one started none`);

    await hooks.delete.call(hook.context);
    step('Trigger deactivation (delete)', `${sandbox.controls.subscriptions().length} subscriptions left`);
  } finally {
    await receiver.close();
  }
}
