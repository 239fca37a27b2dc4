/**
 * The workflows the n8n suites and benchmarks build: Manual Trigger → nodes, our trigger alone
 * (every delivery it accepts is one execution), n8n's Webhook (Raw Body) → Delivery: Verify,
 * and Webhook → Code → Issue.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { N8nInstance, WorkflowJson } from './harness';
import { hasEnded } from '../../support/deliver';
import { until } from '../../support/until';

export const ACTION = 'CUSTOM.certificateService';
export const TRIGGER = 'CUSTOM.certificateServiceTrigger';
export const TRIGGER_NAME = 'Certificate Service Trigger';

/** What a node's `credentials.certificateServiceApi` holds. */
export interface Credential {
  id: string;
  name: string;
}

type Node = Record<string, unknown> & { name: string };

/** Each node feeds the next one (first output to first input). */
export function chain(...nodes: Node[]): Record<string, unknown> {
  const connections: Record<string, unknown> = {};
  for (let i = 0; i < nodes.length - 1; i++) {
    connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
  }
  return connections;
}

/** A Certificate Service node (typeVersion 1) at x along the row, with the credential. */
export function actionNode(name: string, parameters: Record<string, unknown>, credential: Credential, x: number): Node {
  return { id: randomUUID(), name, type: ACTION, typeVersion: 1, position: [x, 0], parameters, credentials: { certificateServiceApi: credential } };
}

/** n8n's Manual Trigger (what the editor's "Execute workflow" starts). */
export function manualTrigger(): Node {
  return { id: randomUUID(), name: 'Manual', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
}

/** Manual Trigger → each of `nodes` in turn: a workflow n8n.runWorkflow runs. */
export function manualWorkflow(name: string, ...nodes: Node[]): WorkflowJson {
  const all = [manualTrigger(), ...nodes];
  return { name, nodes: all, connections: chain(...all) };
}

export interface TriggerWorkflowOptions {
  events?: string[];
  /** 2 skips n8n's per-request expression isolate; 1 is what workflows saved before 0.2 hold. */
  typeVersion?: 1 | 2;
}

export function triggerWorkflow(name: string, webhookId: string, credential: Credential, options: TriggerWorkflowOptions = {}) {
  const { events = ['certificate.issued'], typeVersion = 1 } = options;
  return {
    name,
    nodes: [
      {
        // n8n's own kind of ID: its workflow_publication_trigger_status.nodeId is varchar(36), so on
        // Postgres a longer one (`trigger-<uuid>`) left publishing "in_progress" with no trigger.
        id: randomUUID(),
        name: TRIGGER_NAME,
        type: TRIGGER,
        typeVersion,
        position: [0, 0],
        webhookId,
        parameters: { events, batch: { __rl: true, mode: 'list', value: '' } },
        credentials: { certificateServiceApi: credential },
      },
    ],
    connections: {},
  };
}

/** n8n's Webhook node on POST <baseUrl>/webhook/<path>, answering at once; `rawBody` keeps the bytes (binary `data`). */
export function webhookNode(path: string, options: { rawBody?: boolean } = {}): Node {
  return {
    id: randomUUID(),
    name: 'Webhook',
    type: 'n8n-nodes-base.webhook',
    typeVersion: 2,
    position: [0, 0],
    webhookId: randomUUID(),
    parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: options.rawBody ? { rawBody: true } : {} },
  };
}

/**
 * Webhook (Raw Body) → Certificate Service: Delivery → Verify, the high-volume path of n8n/README.md;
 * Verify's options as saved (none added: `{}`, the defaults).
 */
export function verifyWorkflow(name: string, path: string, signingSecret: string, credential: Credential, options: Record<string, unknown> = {}): WorkflowJson {
  const webhook = webhookNode(path, { rawBody: true });
  const verify = actionNode('Verify', { resource: 'delivery', operation: 'verify', signingSecret, rawBodyProperty: 'data', options }, credential, 200);
  return { name, nodes: [webhook, verify], connections: chain(webhook, verify) };
}

/**
 * Once `want` executions of a verify workflow have ended: those executions, and the items
 * Verify output across them (each delivery it let through).
 */
export async function verifiedItems(n8n: N8nInstance, workflowId: string, want: number, timeoutMs = 60_000) {
  let seen = 0;
  const runs: any[] = await until(`${want} ended executions of workflow ${workflowId}`, async () => {
    const done = (await n8n.executions(workflowId)).filter(hasEnded);
    seen = done.length;
    return done.length >= want && done;
  }, timeoutMs, 100).catch((e: Error) => {
    throw new Error(`${e.message} (saw ${seen})`);
  });
  const items = runs.flatMap((e) => e.data.resultData.runData.Verify?.[0]?.data?.main?.[0] ?? []).map((i: { json: Record<string, unknown> }) => i.json);
  return { runs, items };
}

export interface IssueWorkflowOptions {
  /** The Webhook node's path: a POST there starts a run. */
  path: string;
  /** The Code node's source, returning the items to issue ({ name, email }); it may read the POST body. */
  jsCode: string;
  batchId: string;
  credential: Credential;
  /** Issue's Continue On Fail (each refused item becomes an output item). */
  continueOnFail?: boolean;
}

/** Webhook → Items (Code) → Issue: each item issued into the batch by its name and email, nothing sent. */
export function issueWorkflow(name: string, o: IssueWorkflowOptions): WorkflowJson {
  const webhook = webhookNode(o.path);
  const items: Node = { id: randomUUID(), name: 'Items', type: 'n8n-nodes-base.code', typeVersion: 2, position: [200, 0], parameters: { jsCode: o.jsCode } };
  const issue: Node = {
    ...actionNode('Issue', { resource: 'certificate', operation: 'issue', batch: { __rl: true, mode: 'id', value: o.batchId }, name: '={{ $json.name }}', email: '={{ $json.email }}', specifyData: 'fields', send: false, options: {} }, o.credential, 400),
    ...(o.continueOnFail ? { onError: 'continueRegularOutput' } : {}),
  };
  return { name, nodes: [webhook, items, issue], connections: chain(webhook, items, issue) };
}

/**
 * n8n/examples/issue-from-spreadsheet.json as the READMEs say to use it, in an n8n that loads the
 * package from ~/.n8n/nodes (the node types the example names): imported, the credential and the
 * batch chosen, run. Returns the run.
 */
export async function runIssueExample(n8n: N8nInstance, service: { baseUrl: string; apiKey: string; batchId: string }) {
  const credential = await n8n.createCredential('certificateServiceApi', 'Certificate Service', { apiKey: service.apiKey, baseUrl: service.baseUrl });
  const file = path.resolve(__dirname, '../../../n8n/examples/issue-from-spreadsheet.json');
  const example = JSON.parse(fs.readFileSync(file, 'utf8')) as WorkflowJson & { nodes: Array<Record<string, any>> };
  for (const node of example.nodes) {
    if (!node.type.startsWith('n8n-nodes-certificate-service.')) continue;
    node.credentials = { certificateServiceApi: { id: credential.id, name: 'Certificate Service' } };
    node.parameters.batch = { __rl: true, mode: 'id', value: service.batchId };
  }
  const { id } = await n8n.createWorkflow({ name: example.name, nodes: example.nodes, connections: example.connections });
  return n8n.runWorkflow(id);
}
