// P6: pagination. The n8n node's Certificate → Get Many with Return All over a batch of
// N recipients (seeded with bulk calls through the core, rate limit off) must take exactly
// ceil(N/100) requests: pages of the maximum size, no extra empty page at the end.
// Memory: RSS sampled every 5 ms during the node run (process.memoryUsage().rss), against
// the RSS just before it; the run holds all N items in its output, as n8n itself does.
// RSS moves little when the heap already has room (the seeding grew it), so heap used is
// sampled too.
import v8 from 'node:v8';
import vm from 'node:vm';
import { createClient } from '@certificate-service/sdk';
import { rl, type Credentials } from '../n8n/fake-context';
import { createSandbox } from '@certificate-service/sandbox';
import { fmt, runNode } from './common';
import { mb, round, withRssSampling, type Row } from './measure';

function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

export async function runP6(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<Row[]> {
  const log = options.log ?? (() => {});
  const n = options.quick ? 1_000 : 10_000;
  const sb = await createSandbox({ rateLimit: false, quota: n });
  try {
    const ws = sb.controls.createWorkspace({ quota: n });
    const core = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const batchId = (await core.createBatch({ title: 'P6 pages', designId: 'design_classic' })).id;
    const outcomes = await core.issueMany(
      Array.from({ length: n }, (_, i) => ({ batchId, name: `Learner ${i}`, email: `p6.learner${i}@example.com`, data: { course: 'Benchmarks 101', row: String(i) } })),
      // `row` is no variable of design_classic: allowed, so the pages read back are the ones results.json measured.
      { allowUnknownVariables: true },
    );
    const seeded = outcomes.filter((o) => o.ok).length;
    if (seeded !== n) throw new Error(`P6: seeded ${seeded} of ${n}`);
    log(`P6: seeded ${fmt(n)} recipients`);

    const credentials: Credentials = { apiKey: ws.apiKey, baseUrl: sb.url };
    collectGarbage();
    sb.controls.resetCounters();
    const sampled = await withRssSampling(() => runNode({ resource: 'certificate', operation: 'getMany', batch: rl(batchId), returnAll: true }, credentials, 1));
    const run = sampled.value;
    const requests = sb.controls.counters().requests.total;
    const returned = run.output.length;
    const unique = new Set(run.output.map((o) => o.json.id)).size;
    const ideal = Math.ceil(n / 100);
    const { maxRSS } = process.resourceUsage(); // kB, whole process lifetime (seeding included)
    log(`P6: ${fmt(returned)} returned in ${requests} requests, ${round(run.ms)} ms; RSS ${mb(sampled.baselineRss)} -> peak ${mb(sampled.peakRss)} MB`);
    return [
      {
        id: 'P6',
        what: `n8n Get Many (Return All) over ${fmt(n)} recipients`,
        ours: `${requests} requests, ${round(run.ms, 0)} ms; peak RSS ${mb(sampled.peakRss)} MB, heap used +${mb(sampled.peakHeap - sampled.baselineHeap)} MB`,
        baseline: `ceil(N/100) = ${ideal} requests; RSS before ${mb(sampled.baselineRss)} MB, heap used ${mb(sampled.baselineHeap)} MB`,
        ratio: round(requests / ideal, 3),
        target: `exactly ${ideal} requests, all ${fmt(n)} returned once`,
        met: requests === ideal && returned === n && unique === n,
        extra: {
          n,
          requests,
          idealRequests: ideal,
          returned,
          uniqueReturned: unique,
          elapsedMs: round(run.ms, 1),
          rssBeforeMB: mb(sampled.baselineRss),
          rssPeakMB: mb(sampled.peakRss),
          rssGrowthMB: mb(sampled.peakRss - sampled.baselineRss),
          heapUsedBeforeMB: mb(sampled.baselineHeap),
          heapUsedPeakMB: mb(sampled.peakHeap),
          heapGrowthBytesPerItem: Math.round((sampled.peakHeap - sampled.baselineHeap) / n),
          processMaxRssMB: mb(maxRSS * 1024),
        },
      },
    ];
  } finally {
    await sb.close();
  }
}
