// Shared pieces of the benchmarks: running the n8n node's real execute path through the
// fake n8n context (real HTTP against the sandbox), with every HTTP call timed.
import fs from 'node:fs';
import path from 'node:path';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { CertificateService as CertificateServiceNode } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { fakeExecute, inputItems, rl, type Credentials, type ParamsFor } from '../n8n/fake-context';

/** The built package, as n8n loads it (`npm run bench` builds first). */
export const N8N_DIST = path.resolve(__dirname, '../../n8n/dist');
const NODE_JS = path.join(N8N_DIST, 'nodes/CertificateService/CertificateService.node.js');

/**
 * The node from n8n/dist, the code users install. (tsx would resolve the source import
 * `CertificateService.node` to the codex file `CertificateService.node.json` next to it.)
 */
export function loadNode(): CertificateServiceNode {
  if (!fs.existsSync(NODE_JS)) throw new Error(`${NODE_JS} is missing: run \`npm run build -w n8n\` (npm run bench does it)`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { CertificateService } = require(NODE_JS) as { CertificateService: new () => CertificateServiceNode };
  return new CertificateService();
}

export interface TimedCall {
  /** performance.now() at the start and end of the HTTP call. */
  start: number;
  end: number;
  status: number | null;
}

type HttpHelper = (this: unknown, credentialType: string, options: unknown) => Promise<{ statusCode: number }>;

/** Wraps the context's httpRequestWithAuthentication so every call is timed. */
export function timeCalls(context: IExecuteFunctions): TimedCall[] {
  const calls: TimedCall[] = [];
  const helpers = context.helpers as unknown as { httpRequestWithAuthentication: HttpHelper };
  const inner = helpers.httpRequestWithAuthentication;
  helpers.httpRequestWithAuthentication = async function (this: unknown, credentialType, options) {
    const call: TimedCall = { start: performance.now(), end: 0, status: null };
    calls.push(call);
    try {
      const response = await inner.call(this, credentialType, options);
      call.status = response.statusCode;
      return response;
    } finally {
      call.end = performance.now();
    }
  } as HttpHelper;
  return calls;
}

export interface NodeRun {
  output: INodeExecutionData[];
  calls: TimedCall[];
  ms: number;
  /** performance.now() when execute() was called. */
  startedAt: number;
}

/** Runs the Certificate Service node once over `items` input items. */
export async function runNode(params: ParamsFor, credentials: Credentials, items: number, continueOnFail = false): Promise<NodeRun> {
  const fake = fakeExecute({ params, credentials, items: inputItems(items), continueOnFail });
  const calls = timeCalls(fake.context);
  const start = performance.now();
  const [output] = await loadNode().execute.call(fake.context);
  return { output, calls, ms: performance.now() - start, startedAt: start };
}

/** Parameters of the node's Certificate → Issue operation for item i. */
export const issueParams =
  (batchId: string, tag = 'bench') =>
  (i: number) => ({
    resource: 'certificate',
    operation: 'issue',
    batch: rl(batchId),
    name: `Learner ${i}`,
    email: `${tag}.learner${i}@example.com`,
    specifyData: 'json',
    dataJson: { course: 'Benchmarks 101', score: i % 100 },
  });

export const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Runs `total` tasks with at most `concurrency` in flight. */
export async function pool(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, worker));
}

export const fmt = (n: number) => n.toLocaleString('en-US');
