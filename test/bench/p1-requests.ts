// P1: requests per issuance. N certificates through the n8n node's Issue operation (its real
// execute path in the fake n8n context, real HTTP to the sandbox), against the per-item
// approach of n8n's generic HTTP Request node: one POST per item, measured for real through
// the same n8n HTTP helper and the same sandbox. The rate limit is off here (this counts
// requests; P2 is the rate-limited run).
import { createClient } from '@certificate-service/sdk';
import { makeHttp, makeNode, type Credentials, type RecordedRequest } from '../n8n/fake-context';
import { createSandbox } from '@certificate-service/sandbox';
import { fmt, issueParams, runNode } from './common';
import { round, type Row } from './measure';

export async function runP1(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<Row[]> {
  const log = options.log ?? (() => {});
  const n = options.quick ? 200 : 1_000;
  const sb = await createSandbox({ rateLimit: false, quota: 10 * n });
  try {
    const ws = sb.controls.createWorkspace({ quota: 10 * n });
    const credentials: Credentials = { apiKey: ws.apiKey, baseUrl: sb.url };
    const core = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const oursBatch = (await core.createBatch({ title: 'P1 node', designId: 'design_classic' })).id;
    const peerBatch = (await core.createBatch({ title: 'P1 per item', designId: 'design_classic' })).id;

    // Ours: the node with its default "Batch Requests" on.
    sb.controls.resetCounters();
    const ours = await runNode(issueParams(oursBatch, 'p1'), credentials, n);
    const oursCounters = sb.controls.counters();
    const oursRequests = oursCounters.requests.total;
    // With the node's defaults, "Skip Emails Already Issued" reads the batch once before issuing.
    const oursReads = Object.entries(oursCounters.requests.byRoute).filter(([route]) => route.startsWith('GET')).reduce((n, [, c]) => n + c, 0);
    const oursIssued = ours.output.filter((o) => typeof o.json.certificateId === 'string').length;
    if (oursIssued !== n) throw new Error(`P1: the node issued ${oursIssued} of ${n}`);
    log(`P1 ours: ${n} issued in ${oursRequests} requests, ${round(ours.ms)} ms`);

    // Peer: what n8n's HTTP Request node does by default (no "Batching" option): one request
    // per input item, all started together and awaited with Promise.allSettled
    // (n8n-nodes-base HttpRequestV3), through the same n8n HTTP helper.
    sb.controls.resetCounters();
    const requests: RecordedRequest[] = [];
    const http = makeHttp(makeNode({ name: 'HTTP Request' }), () => credentials, requests);
    const peerStart = performance.now();
    const settled = await Promise.allSettled(
      Array.from({ length: n }, (_, i) =>
        http.call(null, 'certificateServiceApi', {
          method: 'POST',
          url: `${sb.baseUrl}/batches/${peerBatch}/recipients`,
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({ name: `Learner ${i}`, email: `p1.peer${i}@example.com`, data: { course: 'Benchmarks 101', score: String(i % 100) } }),
          returnFullResponse: true,
          ignoreHttpStatusErrors: true,
        }),
      ),
    );
    const peerMs = performance.now() - peerStart;
    const peerRequests = sb.controls.counters().requests.total;
    const peerIssued = settled.filter((s) => s.status === 'fulfilled' && s.value.statusCode === 201).length;
    if (peerIssued !== n) throw new Error(`P1: the per-item peer issued ${peerIssued} of ${n}`);
    log(`P1 peer: ${n} issued in ${peerRequests} requests, ${round(peerMs)} ms`);

    // Our own per-item mode ("Batch Requests" off), sequential, for reference.
    sb.controls.resetCounters();
    const perItem = await runNode((i) => ({ ...issueParams(oursBatch, 'p1seq')(i), options: { batchRequests: false } }), credentials, n);
    const perItemRequests = sb.controls.counters().requests.total;

    // The bulk calls, and three reads: the batch and its design (the design check, on by default:
    // one page of designs here) and one of the (empty) batch's certificates (skip-existing).
    const ideal = Math.ceil(n / 100) + 3;
    const windows = (calls: number) => Math.ceil(calls / 120);
    return [
      {
        id: 'P1',
        what: `requests to issue ${fmt(n)} certificates with the node's defaults (n8n node Issue vs HTTP Request node, one POST per item)`,
        ours: `${oursRequests} requests, ${round(ours.ms, 0)} ms`,
        baseline: `${peerRequests} requests, ${round(peerMs, 0)} ms (${round(peerMs / ours.ms, 1)}× our time)`,
        ratio: round(oursRequests / peerRequests, 4),
        target: `exactly ceil(N/100) bulk calls + 3 reads (the batch and its design for the design check, its certificates for Skip Emails Already Issued; both on by default) = ${ideal} requests`,
        met: oursRequests === ideal,
        extra: {
          n,
          idealRequests: ideal,
          oursRequests,
          oursReads,
          oursElapsedMs: round(ours.ms, 1),
          peerRequests,
          peerElapsedMs: round(peerMs, 1),
          peerOverOursElapsed: round(peerMs / ours.ms),
          peerOverOursRequests: round(peerRequests / oursRequests, 1),
          peer: 'HTTP Request node default: one POST per item, all in flight at once (Promise.allSettled)',
          rateLimit: 'off (counts requests; see P2 for the 120/min run)',
          // Derived, not measured: what the same request counts cost under 120 requests/min.
          minimumFullWindowsAt120PerMin: { ours: windows(oursRequests) - 1, peer: windows(peerRequests) - 1 },
          oursPerItemModeRequests: perItemRequests,
          oursPerItemModeElapsedMs: round(perItem.ms, 1),
        },
      },
    ];
  } finally {
    await sb.close();
  }
}
