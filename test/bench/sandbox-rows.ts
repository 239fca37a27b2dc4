// The sandbox's own benchmark (sandbox-bench.ts) as rows of the table: loopback
// request throughput, and the cost of holding 100,000 recipients in memory.
import { runSandboxBenchmark } from './sandbox-bench';
import { fmt } from './common';
import { round, type Row } from './measure';

export async function runSandboxRows(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<Row[]> {
  const r = await runSandboxBenchmark({
    requests: options.quick ? 2_000 : 20_000,
    recipients: options.quick ? 10_000 : 100_000,
    lookups: options.quick ? 200 : 2_000,
    log: options.log,
  });
  const t = r.throughput;
  const m = r.memory;
  return [
    {
      id: 'S1',
      what: `sandbox throughput: ${fmt(t.requests)} authenticated GETs, concurrency ${t.concurrency} (client in the same process)`,
      ours: `${fmt(t.requestsPerSecond)} req/s (p50 ${t.p50Ms} ms, p99 ${t.p99Ms} ms)`,
      baseline: '2,000 req/s',
      ratio: round(t.requestsPerSecond / 2_000),
      target: '≥ 2,000 req/s',
      met: t.requestsPerSecond >= 2_000 && t.errors === 0,
      extra: { ...t },
    },
    {
      id: 'S2',
      what: `sandbox holding ${fmt(m.recipients)} recipients (${m.bulkCalls} bulk calls)`,
      ours: `${m.bytesPerRecipient} B/recipient heap, issued in ${m.issueSeconds} s, RSS ${m.rssMB} MB`,
      baseline: `lookup by certificateId avg ${r.lookups.byCertificateIdAvgMs} ms, by token avg ${r.lookups.byTokenAvgMs} ms`,
      ratio: null,
      target: 'informational',
      met: null,
      extra: { memory: m, lookups: r.lookups },
    },
  ];
}
