// Sandbox benchmark (not a test): loopback throughput, and 100,000 recipients in memory.
//   npx tsx test/bench/sandbox-bench.ts [--requests 20000] [--concurrency 32] [--recipients 100000]
// Client and server share one process and one thread, so req/s is a floor for the server.
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';

export interface BenchOptions {
  requests?: number;
  concurrency?: number;
  recipients?: number;
  lookups?: number;
  log?: (line: string) => void;
}

export interface BenchResult {
  throughput: { requests: number; concurrency: number; seconds: number; requestsPerSecond: number; p50Ms: number; p99Ms: number; errors: number };
  memory: { recipients: number; issueSeconds: number; bulkCalls: number; heapUsedBeforeMB: number; heapUsedAfterMB: number; bytesPerRecipient: number; rssMB: number };
  lookups: { count: number; byCertificateIdAvgMs: number; byCertificateIdP99Ms: number; byTokenAvgMs: number; byTokenP99Ms: number; listFirstPageMs: number; listFullScanFilterMs: number };
}

interface Res {
  status: number;
  body: string;
}

function request(agent: http.Agent, sb: Sandbox, method: string, path: string, body?: unknown): Promise<Res> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(sb.baseUrl + path, {
      method,
      agent,
      headers: {
        Authorization: `Bearer ${sb.apiKey}`,
        ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Runs `total` tasks with at most `concurrency` in flight; returns each task's latency in ms. */
async function pool(total: number, concurrency: number, task: (i: number) => Promise<boolean>): Promise<{ latencies: number[]; errors: number }> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const t = performance.now();
      if (!(await task(i).catch(() => false))) errors++;
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return { latencies, errors };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? 0;
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

function collectGarbage(): void {
  // Exposes gc() without needing --expose-gc on the command line.
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

export async function runSandboxBenchmark(options: BenchOptions = {}): Promise<BenchResult> {
  const { requests = 20_000, concurrency = 32, recipients = 100_000, lookups = 2_000, log = () => {} } = options;
  const sb = await createSandbox({ rateLimit: false, quota: recipients + 1_000 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const batch = JSON.parse((await request(agent, sb, 'POST', '/batches', { title: 'Bench', designId: 'design_classic' })).body);

    // 1. Throughput: small authenticated GETs over keep-alive connections.
    await pool(500, concurrency, async () => (await request(agent, sb, 'GET', `/batches/${batch.id}`)).status === 200); // warm-up
    const t0 = performance.now();
    const run = await pool(requests, concurrency, async () => (await request(agent, sb, 'GET', `/batches/${batch.id}`)).status === 200);
    const seconds = (performance.now() - t0) / 1000;
    const throughput = {
      requests,
      concurrency,
      seconds: round(seconds),
      requestsPerSecond: Math.round(requests / seconds),
      p50Ms: round(pct(run.latencies, 50)),
      p99Ms: round(pct(run.latencies, 99)),
      errors: run.errors,
    };
    log(`throughput: ${throughput.requestsPerSecond} req/s (${requests} GETs, concurrency ${concurrency}, p50 ${throughput.p50Ms} ms, p99 ${throughput.p99Ms} ms, errors ${run.errors})`);

    // 2. Memory: issue `recipients` certificates through bulk calls of 100 into one batch.
    collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;
    const sample: Array<{ certificateId: string; shareToken: string }> = [];
    const calls = Math.ceil(recipients / 100);
    const t1 = performance.now();
    const issued = await pool(calls, 8, async (c) => {
      const size = Math.min(100, recipients - c * 100);
      const list = Array.from({ length: size }, (_, i) => ({ name: `Learner ${c * 100 + i}`, email: `l${c * 100 + i}@example.com`, data: { course: 'Bench 101', score: String(i % 100) } }));
      const res = await request(agent, sb, 'POST', `/batches/${batch.id}/recipients/bulk`, { recipients: list });
      if (res.status !== 201) return false;
      const first = (JSON.parse(res.body) as { data: Array<{ certificateId: string; shareToken: string }> }).data[0];
      sample.push({ certificateId: first.certificateId, shareToken: first.shareToken });
      return true;
    });
    const issueSeconds = (performance.now() - t1) / 1000;
    if (issued.errors) throw new Error(`${issued.errors} bulk calls failed`);
    collectGarbage();
    const mem = process.memoryUsage();
    const memory = {
      recipients,
      issueSeconds: round(issueSeconds),
      bulkCalls: calls,
      heapUsedBeforeMB: mb(heapBefore),
      heapUsedAfterMB: mb(mem.heapUsed),
      bytesPerRecipient: Math.round((mem.heapUsed - heapBefore) / recipients),
      rssMB: mb(mem.rss),
    };
    log(`memory: ${recipients} recipients issued in ${memory.issueSeconds} s (${calls} bulk calls); heap ${memory.heapUsedBeforeMB} -> ${memory.heapUsedAfterMB} MB (~${memory.bytesPerRecipient} B/recipient), rss ${memory.rssMB} MB`);

    // 3. Lookups among 100k, one at a time (latency, not throughput).
    const timeEach = async (path: (i: number) => string) => {
      const xs: number[] = [];
      for (let i = 0; i < lookups; i++) {
        const t = performance.now();
        const res = await request(agent, sb, 'GET', path(i));
        if (res.status !== 200) throw new Error(`lookup ${path(i)} -> ${res.status}`);
        xs.push(performance.now() - t);
      }
      return xs;
    };
    const pick = (i: number) => sample[(i * 7919) % sample.length];
    const byId = await timeEach((i) => `/certificates/${pick(i).certificateId}`);
    const byToken = await timeEach((i) => `/certificates/by-token/${pick(i).shareToken}`);
    const timeOne = async (path: string) => {
      const t = performance.now();
      await request(agent, sb, 'GET', path);
      return round(performance.now() - t);
    };
    const result: BenchResult['lookups'] = {
      count: lookups,
      byCertificateIdAvgMs: round(avg(byId), 3),
      byCertificateIdP99Ms: round(pct(byId, 99), 3),
      byTokenAvgMs: round(avg(byToken), 3),
      byTokenP99Ms: round(pct(byToken, 99), 3),
      listFirstPageMs: await timeOne(`/batches/${batch.id}/recipients?limit=100`),
      // No recipient was sent, so this filter walks all 100k and returns an empty page.
      listFullScanFilterMs: await timeOne(`/batches/${batch.id}/recipients?limit=100&emailStatus=sent`),
    };
    log(`lookups: by certificateId avg ${result.byCertificateIdAvgMs} ms (p99 ${result.byCertificateIdP99Ms}), by token avg ${result.byTokenAvgMs} ms (p99 ${result.byTokenP99Ms}); first page of 100 ${result.listFirstPageMs} ms; filtered full scan ${result.listFullScanFilterMs} ms`);
    return { throughput, memory, lookups: result };
  } finally {
    agent.destroy();
    await sb.close();
  }
}

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

if (require.main === module) {
  runSandboxBenchmark({
    requests: flag('requests', 20_000),
    concurrency: flag('concurrency', 32),
    recipients: flag('recipients', 100_000),
    lookups: flag('lookups', 2_000),
    log: (line) => console.log(line),
  })
    .then((r) => {
      console.log(JSON.stringify(r, null, 2));
      if (r.throughput.requestsPerSecond < 2_000) console.log('WARNING: below the 2,000 req/s target');
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
