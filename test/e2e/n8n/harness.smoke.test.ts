/**
 * Smoke test of the n8n e2e harness with built-in nodes only: proves that a real
 * n8n 2.41.1 installs, starts, runs webhook and manual workflows, and stops.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { until } from '../../support/until';
import { ensureN8nInstalled, startN8n, type N8nInstance } from './harness';
import { manualWorkflow } from './workflows';

jest.setTimeout(120_000);

describe('n8n e2e harness (built-in nodes)', () => {
  let n8n: N8nInstance | undefined;
  let extDir: string;

  beforeAll(async () => {
    ensureN8nInstalled(); // ~5-7 min on a fresh machine, instant afterwards
    extDir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-n8n-ext-'));
    n8n = await startN8n({ customExtensionsDir: extDir });
  }, 15 * 60_000);

  afterAll(async () => {
    await n8n?.stop();
    if (extDir) fs.rmSync(extDir, { recursive: true, force: true });
  });

  const set = (name: string, value: string) => ({
    id: `${name}-set`,
    name: 'Set',
    type: 'n8n-nodes-base.set',
    typeVersion: 3.4,
    position: [200, 0],
    parameters: {
      assignments: { assignments: [{ id: 'a1', name, value, type: 'string' }] },
      includeOtherFields: false,
      options: {},
    },
  });

  it('runs a published webhook workflow and records its execution', async () => {
    const inst = n8n!;
    const wf = await inst.createWorkflow({
      name: 'smoke webhook',
      nodes: [
        {
          id: 'wh',
          name: 'Webhook',
          type: 'n8n-nodes-base.webhook',
          typeVersion: 2,
          position: [0, 0],
          webhookId: 'smoke-webhook-id',
          parameters: { httpMethod: 'POST', path: 'smoke', responseMode: 'lastNode', responseData: 'allEntries', options: {} },
        },
        set('greeting', '={{ "hello " + $json.body.name }}'),
      ],
      connections: { Webhook: { main: [[{ node: 'Set', type: 'main', index: 0 }]] } },
    });

    await inst.publish(wf.id); // resolves once the production webhook is live

    const res = await inst.webhook('smoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'n8n' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ greeting: 'hello n8n' }]);

    // The execution is saved right after the response; poll briefly.
    const executions = await until('the finished execution', async () => {
      const finished = (await inst.executions(wf.id)).filter((e) => e.finished);
      return finished.length > 0 && finished;
    }, 5_000, 100);
    expect(executions).toHaveLength(1);
    expect(executions[0].mode).toBe('webhook');
    expect(executions[0].status).toBe('success');
    expect(executions[0].data.resultData.runData.Set[0].data.main[0][0].json).toEqual({ greeting: 'hello n8n' });

    // After unpublishing, the production URL is gone.
    await inst.unpublish(wf.id);
    const gone = await inst.webhook('smoke', { method: 'POST', body: '{}' });
    expect(gone.status).toBe(404);
  });

  it('runs a manual-trigger workflow and returns its output items', async () => {
    const inst = n8n!;
    const wf = await inst.createWorkflow(manualWorkflow('smoke manual', set('hello', 'world')));

    const run = await inst.runWorkflow(wf.id);
    expect(run.status).toBe('success');
    expect(run.lastNode).toBe('Set');
    expect(run.items).toEqual([{ hello: 'world' }]);
    expect(run.outputOf('Manual')).toEqual([{}]);
    expect(run.error).toBeUndefined();

    const executions = await inst.executions(wf.id);
    expect(executions.map((e) => e.id)).toContain(run.executionId);
    expect(executions[0].mode).toBe('manual');
  });

  it('reports a failing manual run with its error', async () => {
    const inst = n8n!;
    const wf = await inst.createWorkflow(
      manualWorkflow('smoke error', { id: 'se', name: 'Fail', type: 'n8n-nodes-base.stopAndError', typeVersion: 1, position: [200, 0], parameters: { errorMessage: 'boom from smoke test' } }),
    );

    const run = await inst.runWorkflow(wf.id);
    expect(run.status).toBe('error');
    expect(run.lastNode).toBe('Fail');
    expect(run.error).toContain('boom from smoke test');
  });

  it('captures the n8n log', () => {
    expect(n8n!.logs()).toContain('Editor is now accessible');
  });
});
