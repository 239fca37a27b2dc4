// S3: the SDK's default transport (undici.request over a keep-alive Agent) against the fetch
// transport it replaced: 2,000 authenticated GETs through the client at concurrency 16, against
// the sandbox in this process. Rounds alternate which transport goes first; the ratio is the
// median over rounds of (fetch time / undici time), i.e. undici's requests/s over fetch's.
import { CertificateServiceClient, type Transport } from '@certificate-service/sdk/core';
import { createFetchTransport, createUndiciTransport, timerSleep } from '@certificate-service/sdk';
import { createSandbox } from '@certificate-service/sandbox';
import { fmt, pool } from './common';
import { median, round, type Row } from './measure';

type Name = 'undici' | 'fetch';

export async function runS3(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<Row[]> {
  const requests = options.quick ? 500 : 2_000;
  const rounds = options.quick ? 2 : 6;
  const concurrency = 16;
  const log = options.log ?? (() => {});
  const sb = await createSandbox({ rateLimit: false });
  const undici = createUndiciTransport(); // createClient's default settings: 16 connections per origin
  const transports: Record<Name, Transport> = { undici, fetch: createFetchTransport() };
  try {
    const clients = {} as Record<Name, CertificateServiceClient>;
    for (const name of Object.keys(transports) as Name[]) clients[name] = new CertificateServiceClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey, transport: transports[name], sleep: timerSleep });
    const batchId = (await clients.undici.createBatch({ title: 'S3', designId: 'design_classic' })).id;

    const latencies: Record<Name, number[]> = { undici: [], fetch: [] };
    const runOnce = async (name: Name, n: number, record: boolean) => {
      const start = performance.now();
      await pool(n, concurrency, async () => {
        const t = performance.now();
        await clients[name].getBatch(batchId);
        if (record) latencies[name].push(performance.now() - t);
      });
      return performance.now() - start;
    };
    for (const name of ['undici', 'fetch'] as Name[]) await runOnce(name, 400, false); // warm-up: JIT, connections

    const ms: Record<Name, number[]> = { undici: [], fetch: [] };
    for (let r = 0; r < rounds; r++) {
      const order: Name[] = r % 2 ? ['fetch', 'undici'] : ['undici', 'fetch'];
      for (const name of order) ms[name].push(await runOnce(name, requests, true));
      log(`round ${r + 1}: undici ${ms.undici[r].toFixed(0)} ms, fetch ${ms.fetch[r].toFixed(0)} ms`);
    }
    const perRound = ms.fetch.map((f, r) => round(f / ms.undici[r], 2));
    const ratio = round(median(perRound), 2);
    const rps = (name: Name) => Math.round(requests / (median(ms[name]) / 1000));
    const pct = (name: Name, p: number) => round([...latencies[name]].sort((a, b) => a - b)[Math.floor((latencies[name].length - 1) * p)], 2);
    const describe = (name: Name) => `${fmt(rps(name))} req/s (p50 ${pct(name, 0.5)} ms, p99 ${pct(name, 0.99)} ms)`;
    return [
      {
        id: 'S3',
        what: `SDK transport: ${fmt(requests)} sandbox GETs through the client, concurrency ${concurrency}, undici (createClient default) vs fetch; median of ${rounds} alternating rounds`,
        ours: `undici: ${describe('undici')}; per-round ratios ${Math.min(...perRound)}–${Math.max(...perRound)}`,
        baseline: `fetch: ${describe('fetch')}`,
        ratio,
        target: '≥ 1 (undici req/s ÷ fetch req/s)',
        met: ratio >= 1,
        note:
          ratio >= 1
            ? undefined
            : `undici was slower than fetch here by ${round((1 - ratio) * 100, 0)}% (client and sandbox share one process and one thread).`,
        extra: { requests, concurrency, rounds, roundMs: ms, perRoundRatios: perRound, connections: 16 },
      },
    ];
  } finally {
    await undici.close();
    await sb.close();
  }
}
