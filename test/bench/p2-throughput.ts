// P2: throughput at the rate-limit ceiling. N certificates through the n8n node (fake n8n
// context, real HTTP) against the sandbox enforcing 120 requests per 60 s window per key.
//
// The sustained ceiling is limit × 100 certificates per window (12,000/min). A fixed window
// lets `limit` requests through at the start of every window, so N / elapsed overstates
// the sustained rate (the last window is only partly used and not waited out). The fair
// figure is ideal_elapsed / actual_elapsed, where ideal_elapsed is the least time any
// sequential client needs under the same limiter for the same number of calls:
//   ideal_elapsed = (W − 1) × window + last_burst
//   W          = ceil(calls / limit), the windows the calls need at the very least
//   last_burst = the HTTP time of the calls in the last window (their measured durations):
//                at this server's speed no client can send them faster one after another.
// It counts as lost only what the client adds: waiting past a window's reset, and time
// between calls spent outside HTTP.
import { listOf } from '../../shared/sdk/src/decode';
import { createClient } from '@certificate-service/sdk';
import { type Credentials } from '../n8n/fake-context';
import { createSandbox } from '@certificate-service/sandbox';
import { fmt, issueParams, runNode, sum } from './common';
import { round, type Row } from './measure';

export interface P2Options {
  quick?: boolean;
  log?: (line: string) => void;
  /** Overrides for experiments; the defaults are the issue's (N = 30,000 at 120 / 60 s). */
  n?: number;
  limit?: number;
  windowMs?: number;
}

export async function runP2(options: P2Options = {}): Promise<Row[]> {
  const log = options.log ?? (() => {});
  // --quick keeps the shape (3 windows, the last one half used) on a 3 s window.
  const n = options.n ?? (options.quick ? 3_000 : 30_000);
  const limit = options.limit ?? (options.quick ? 12 : 120);
  const windowMs = options.windowMs ?? (options.quick ? 3_000 : 60_000);
  const sb = await createSandbox({ rateLimit: { limit, windowMs }, quota: n });
  try {
    const ws = sb.controls.createWorkspace({ quota: n });
    // The batch is made with another key: the rate limit is per key, and the measured key's
    // first window must start with the node's first call.
    const setup = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const batchId = (await setup.createBatch({ title: 'P2 ceiling', designId: 'design_classic' })).id;
    const nodeKey = sb.controls.createApiKey(ws.workspaceId).apiKey;
    const credentials: Credentials = { apiKey: nodeKey, baseUrl: sb.url };

    sb.controls.resetCounters();
    log(`P2: issuing ${fmt(n)} through the n8n node at ${limit} requests / ${windowMs / 1000} s (this takes about ${Math.ceil(n / 100 / limit) - 1} windows)…`);
    const run = await runNode(issueParams(batchId, 'p2'), credentials, n, true);
    const counters = sb.controls.counters();

    // Every input item: a certificate, or an error item (continueOnFail is on so none is hidden).
    const failed = run.output.filter((o) => typeof o.json.certificateId !== 'string');
    const surfaced429 = failed.filter((o) => o.json.code === 'RATE_LIMITED').length;
    const calls = run.calls.length;
    const windows = Math.ceil(calls / limit);
    const lastCalls = run.calls.slice((windows - 1) * limit);
    const lastBurstMs = sum(lastCalls.map((c) => c.end - c.start));
    const idealMs = (windows - 1) * windowMs + lastBurstMs;
    const perMinute = (n / run.ms) * 60_000;
    // Where the client's time went outside HTTP: before the first call (reading and
    // validating the N items), past each window's end before the next window's first call
    // (a window opens with its first call), and after the last call.
    const beforeFirstCallMs = run.calls[0].start - run.startedAt;
    const afterLastCallMs = run.startedAt + run.ms - run.calls[calls - 1].end;
    const boundaryOvershootMs = Array.from({ length: windows - 1 }, (_, w) => run.calls[(w + 1) * limit].start - (run.calls[w * limit].start + windowMs));
    const ceilingPerMinute = ((limit * 100) / windowMs) * 60_000;

    // What exists on the service, read back through the API with fresh keys (their own windows).
    const existing = await listAll(sb.baseUrl, batchId, Array.from({ length: Math.ceil(n / 100 / (limit - 1)) + 1 }, () => sb.controls.createApiKey(ws.workspaceId).apiKey));
    const uniqueCertificates = new Set(existing.map((r) => r.certificateId)).size;
    const uniqueEmails = new Set(existing.map((r) => r.email)).size;
    const quotaUsed = sb.controls.quota(ws.workspaceId).used;
    const duplicates = existing.length - uniqueEmails;
    const clean = failed.length === 0 && quotaUsed === n && existing.length === n && uniqueCertificates === n && duplicates === 0 && surfaced429 === 0;
    const efficiency = idealMs / run.ms;
    log(`P2: ${fmt(n)} in ${round(run.ms / 1000, 1)} s over ${calls} calls in ${windows} windows; ideal ${round(idealMs / 1000, 1)} s; 429s from the limiter ${counters.rateLimited}`);

    const note = [
      `certificates/min = N / elapsed = ${fmt(Math.round(perMinute))} is ${round(perMinute / ceilingPerMinute)}× the sustained ceiling of ${fmt(ceilingPerMinute)}/min only because a fixed window admits a full burst of ${limit} at the start of every window (W = ${windows} windows for ${calls} calls, the last one ${lastCalls.length}/${limit} used and not waited out); it is not a sustained rate.`,
      `The target is judged on ideal_elapsed / actual_elapsed = ${round(efficiency, 3)}, ideal_elapsed = (W − 1) × ${windowMs / 1000} s + last_burst (${round(lastBurstMs / 1000, 2)} s, the measured HTTP time of the last window's calls).`,
      efficiency < 0.95
        ? `Missed by ${round(0.95 - efficiency, 3)}: the client lost ${round((run.ms - idealMs) / 1000, 2)} s: ${round(beforeFirstCallMs / 1000, 2)} s before the first call (reading and validating ${fmt(n)} items), ` +
          `${boundaryOvershootMs.map((x) => round(x / 1000, 2)).join(' s and ')} s past the window ends (RateLimit-Reset is whole seconds, rounded up), and the rest between calls.`
        : '',
      clean ? '' : 'Not clean: see failedItems / quotaUsed / existing / duplicates.',
      counters.rateLimited > 0 ? `The limiter answered ${counters.rateLimited} requests with 429 (retried); calls are then not exactly ${limit} per window, so the window split above is approximate.` : '',
    ]
      .filter(Boolean)
      .join(' ');

    return [
      {
        id: 'P2',
        what: `${fmt(n)} certificates via the n8n node at ${limit} req / ${windowMs / 1000} s (fixed window)`,
        ours: `${round(run.ms / 1000, 1)} s; ${fmt(Math.round(perMinute))} cert/min (N/elapsed)`,
        baseline: `ideal ${round(idealMs / 1000, 1)} s; ceiling ${fmt(ceilingPerMinute)} cert/min sustained`,
        ratio: round(efficiency, 3),
        target: '≥ 0.95 (ideal/actual elapsed), 0 failed, 0 duplicates, 0 surfaced 429s',
        met: efficiency >= 0.95 && clean,
        note,
        extra: {
          n,
          rateLimit: { limit, windowMs },
          calls,
          windows,
          lastWindowCalls: lastCalls.length,
          elapsedMs: round(run.ms, 0),
          idealElapsedMs: round(idealMs, 0),
          lastBurstMs: round(lastBurstMs, 0),
          beforeFirstCallMs: round(beforeFirstCallMs, 0),
          boundaryOvershootMs: boundaryOvershootMs.map((x) => round(x, 0)),
          afterLastCallMs: round(afterLastCallMs, 0),
          idealOverActual: round(efficiency, 4),
          certificatesPerMinute: Math.round(perMinute),
          sustainedCeilingPerMinute: ceilingPerMinute,
          naiveRatioToCeiling: round(perMinute / ceilingPerMinute, 3),
          failedItems: failed.length,
          surfaced429s: surfaced429,
          rateLimitedBySandbox: counters.rateLimited,
          sandboxRequests: counters.requests.total,
          quotaUsed,
          certificatesExisting: existing.length,
          uniqueCertificateIds: uniqueCertificates,
          duplicates,
        },
      },
    ];
  } finally {
    await sb.close();
  }
}

interface Listed {
  email: string;
  certificateId: string;
}

/** Lists every recipient of the batch, spreading the pages over several keys (each has its own window). */
export async function listAll(baseUrl: string, batchId: string, keys: string[]): Promise<Listed[]> {
  const out: Listed[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    const url = `${baseUrl}/batches/${batchId}/recipients?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await fetch(url, { headers: { Authorization: `Bearer ${keys[page % keys.length]}` } });
    if (res.status !== 200) throw new Error(`P2 verification: GET ${url} -> ${res.status} ${await res.text()}`);
    const { items, nextCursor } = listOf<Listed>('certificates')(await res.json(), { endpoint: 'GET /batches/{batchId}/recipients', status: res.status, contentType: 'application/json', issues: false });
    out.push(...items);
    if (!nextCursor) return out;
    cursor = nextCursor;
  }
}
