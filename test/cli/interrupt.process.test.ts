// Ctrl-C during `certsvc issue`, with the built CLI as a child process and a sandbox whose
// delay fault holds the second bulk call: the first Ctrl-C lets that call finish and writes the
// outcomes (exit 130); the second quits at once, writing the rows in flight as "unknown". Either
// way, running the same command again issues nobody twice, also when the service finishes the
// abandoned call after certsvc has gone (the sandbox processes a request whose client left).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { createClient } from '@certificate-service/sdk';
import { CLI, ensureBuilt } from '../support/built';
import { cliWorld } from '../support/cli';
import { until } from '../support/until';

jest.setTimeout(60_000);

const world = cliWorld({ rateLimit: false }, 'certsvc-int-');
beforeAll(() => ensureBuilt(), 120_000);

const BULK_PATH = '^/api/v1/batches/[^/]+/recipients/bulk$';
const bulkCalls = () => Object.entries(world.sb.controls.counters().requests.byRoute).filter(([r]) => /recipients\/bulk$/.test(r)).reduce((n, [, c]) => n + c, 0);

async function setup(name: string) {
  world.sb.controls.resetCounters();
  const ws = world.sb.controls.createWorkspace({ quota: 10_000 });
  const client = createClient({ baseUrl: world.sb.baseUrl, apiKey: ws.apiKey });
  const batchId = (await client.createBatch({ title: name, designId: 'design_classic' })).id;
  const csv = path.join(world.dir, `${name}.csv`);
  fs.writeFileSync(csv, ['name,email', ...Array.from({ length: 250 }, (_, i) => `Learner ${i},learner${i}@example.com`)].join('\n'));
  return { ws, client, batchId, csv, errors: path.join(world.dir, `${name}-errors.csv`), out: path.join(world.dir, `${name}-out.csv`) };
}

/** The CLI's state folder: its in-flight markers live there. */
const stateDir = () => path.join(world.dir, 'state');
const markers = () => {
  const dir = path.join(stateDir(), 'in-flight');
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => path.join(dir, f)) : [];
};

/** Starts `certsvc issue`; `interrupt(n)` sends n SIGINTs while the second bulk call is held. */
function issue(args: string[], apiKey: string) {
  const child = spawn(process.execPath, [CLI, 'issue', ...args], { env: { PATH: process.env.PATH, CERTSVC_BASE_URL: world.sb.baseUrl, CERTSVC_API_KEY: apiKey, CERTSVC_STATE_DIR: stateDir() } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string; ms: number }>((resolve) => {
    const started = Date.now();
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
  return { child, done };
}

const summary = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop()!);
const distinctEmails = async (client: ReturnType<typeof createClient>, batchId: string) => {
  const emails: string[] = [];
  for await (const r of client.iterateRecipients(batchId)) emails.push(r.email);
  return { total: emails.length, distinct: new Set(emails).size };
};

test('one Ctrl-C: the call in flight finishes, the rest is not sent, exit 130; the re-run issues only the rest', async () => {
  const { ws, client, batchId, csv, errors, out } = await setup('once');
  world.sb.controls.injectFaults({ kind: 'delay', delayMs: 1500, every: 2, match: { method: 'POST', path: BULK_PATH } });
  const run = issue(['--batch', batchId, '--csv', csv, '--errors', errors, '--out', out], ws.apiKey);
  await until('the second bulk call', () => bulkCalls() === 2); // the second call is in flight, held by the sandbox
  // --out is written as the run goes: the first call's 100 rows are there while the second is held.
  await until('the first 100 rows in --out', () => fs.existsSync(out) && (parse(fs.readFileSync(out, 'utf8'), { columns: true, bom: true }) as unknown[]).length === 100);
  run.child.kill('SIGINT');
  const r = await run.done;
  world.sb.controls.clearFaults();
  expect(r.code).toBe(130);
  expect(r.stderr).toContain('Stopping: the call in flight finishes, nothing more is sent');
  expect(summary(r.stdout)).toEqual({ issued: 200, skipped: 0, invalid: 0, failed: 0, unknown: 0, notSent: 50, requests: 5 }); // batch, design, list, 2 bulk calls
  const written = parse(fs.readFileSync(errors, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  expect(written.map((w) => w.outcome)).toEqual(Array(50).fill('notSent'));
  expect(written[0]).toMatchObject({ line: '202', email: 'learner200@example.com', code: 'NOT_SENT' });
  const results = parse(fs.readFileSync(out, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  expect(results).toHaveLength(250); // one row per input row, true at the Ctrl-C
  expect(results.filter((w) => w.outcome === 'issued' && /^CERT-/.test(w.certificateId))).toHaveLength(200);
  expect(results.filter((w) => w.outcome === 'notSent').map((w) => Number(w.line)).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => 202 + i));

  const again = issue(['--batch', batchId, '--csv', csv], ws.apiKey);
  const second = await again.done;
  expect(second.code).toBe(0);
  expect(summary(second.stdout)).toMatchObject({ issued: 50, skipped: 200 });
  expect(await distinctEmails(client, batchId)).toEqual({ total: 250, distinct: 250 });
  expect(world.sb.controls.quota(ws.workspaceId).used).toBe(250);
  expect(markers()).toEqual([]);
});

test('two Ctrl-C: it quits at once, the rows in flight written as "unknown" with the risk said; a re-run after the service finished issues nobody twice', async () => {
  const { ws, client, batchId, csv, errors, out } = await setup('twice');
  world.sb.controls.injectFaults({ kind: 'delay', delayMs: 4000, every: 2, match: { method: 'POST', path: BULK_PATH } });
  const run = issue(['--batch', batchId, '--csv', csv, '--errors', errors, '--out', out], ws.apiKey);
  await until('the second bulk call', () => bulkCalls() === 2);
  const sentAt = Date.now();
  run.child.kill('SIGINT');
  await until('the first Ctrl-C to be taken', () => run.child.exitCode !== null || fs.existsSync(errors) || Date.now() - sentAt > 200, 2_000);
  run.child.kill('SIGINT');
  const r = await run.done;
  expect(Date.now() - sentAt).toBeLessThan(3_000); // did not wait for the held call
  expect(r.code).toBe(130);
  expect(r.stderr).toMatch(/Quit while the call for lines 102-201 was in flight; they are in .*twice-errors\.csv as "unknown"\. The service may still finish that call: wait a minute, then run the same command again; rows it issued by then are skipped\./);
  const written = parse(fs.readFileSync(errors, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  expect(written.filter((w) => w.outcome === 'unknown')).toHaveLength(100);
  expect(written.filter((w) => w.outcome === 'unknown').every((w) => w.outcomeUnknown === 'true')).toBe(true);
  expect(written.filter((w) => w.outcome === 'notSent')).toHaveLength(50);
  const results = parse(fs.readFileSync(out, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  expect(results.map((w) => w.outcome).sort()).toEqual([...Array(100).fill('issued'), ...Array(50).fill('notSent'), ...Array(100).fill('unknown')]);

  // The quit certsvc left a marker per row of the call in flight, saying when it was sent: a run
  // within a minute waits for those rows (or ends them `unknown`) rather than issuing them again.
  const left = markers().map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as { sentAt?: number });
  // (The 50 rows never sent keep an unsent marker, which a new run takes over at once.)
  expect(left.filter((m) => m.sentAt === undefined)).toHaveLength(50);
  expect(left.filter((m) => typeof m.sentAt === 'number' && m.sentAt >= sentAt - 5_000)).toHaveLength(100);

  // The service finishes the abandoned call (its client has gone); "wait a minute" (the markers
  // are aged by two), then the same command again.
  await until('the abandoned call to be issued', () => world.sb.controls.quota(ws.workspaceId).used === 200);
  world.sb.controls.clearFaults();
  for (const f of markers()) fs.writeFileSync(f, JSON.stringify({ ...JSON.parse(fs.readFileSync(f, 'utf8')), createdAt: Date.now() - 120_000, sentAt: Date.now() - 120_000 }));
  const second = await issue(['--batch', batchId, '--csv', csv], ws.apiKey).done;
  expect(second.code).toBe(0);
  expect(summary(second.stdout)).toMatchObject({ issued: 50, skipped: 200 });
  expect(await distinctEmails(client, batchId)).toEqual({ total: 250, distinct: 250 });
  expect(world.sb.controls.quota(ws.workspaceId).used).toBe(250);
  expect(markers()).toEqual([]);
});
