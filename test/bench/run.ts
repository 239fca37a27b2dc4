// The benchmarks: `npm run bench` (builds first), or `npx tsx test/bench/run.ts [options]`.
//   --only P1,P4   run only these (P1..P9, P9R = floods then recovery, S = the sandbox's own benchmark, S3 = the SDK's transports)
//   --quick        small N for a smoke run; written to results.local.json (git-ignored)
//   --markdown     also print the table as Markdown (for the README)
//   --print        print results.json as a Markdown table and exit (runs nothing)
// Benchmarks print numbers; they are not timed tests and never fail on a missed target.
// Every figure is a ratio measured side by side in this one run. See README.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Row } from './measure';
import { runP1 } from './p1-requests';
import { runP2 } from './p2-throughput';
import { runP3 } from './p3-trigger';
import { runP4 } from './p4-verify';
import { runP5 } from './p5-zapier';
import { runP6 } from './p6-pagination';
import { runP7 } from './p7-shared-key';
import { runP8 } from './p8-webhook-processes';
import { runP9 } from './p9-floods';
import { runP9R } from './p9-recover';
import { runS3 } from './s3-transport';
import { runSandboxRows } from './sandbox-rows';
import { writeReadmes } from './readme';

interface RunOptions {
  quick: boolean;
  log: (line: string) => void;
}

const BENCHES: Record<string, (o: RunOptions) => Promise<Row[]> | Row[]> = {
  P1: runP1,
  P2: runP2,
  P3: runP3,
  P4: runP4,
  P5: runP5,
  P6: runP6,
  P7: runP7,
  P8: runP8,
  P9: runP9,
  P9R: runP9R,
  S: runSandboxRows,
  S3: runS3,
};

/** The benchmark a row id belongs to: the longest benchmark id it starts with (case aside). */
export const benchOf = (rowId: string): string | undefined =>
  Object.keys(BENCHES)
    .filter((id) => rowId.toUpperCase().startsWith(id))
    .sort((a, b) => b.length - a.length)[0];

const RESULTS = path.join(__dirname, 'results.json');
const LOCAL_RESULTS = path.join(__dirname, 'results.local.json');

function parseArgs(argv: string[]) {
  const only = (() => {
    const i = argv.findIndex((a) => a === '--only' || a.startsWith('--only='));
    if (i < 0) return Object.keys(BENCHES);
    const value = argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
    const ids = String(value ?? '')
      .split(',')
      .map((s) => s.trim().toUpperCase())
      .filter(Boolean);
    const unknown = ids.filter((id) => !BENCHES[id]);
    if (ids.length === 0 || unknown.length) throw new Error(`--only takes a list of ${Object.keys(BENCHES).join(', ')} (got ${value})`);
    return ids;
  })();
  return { only, quick: argv.includes('--quick'), markdown: argv.includes('--markdown') };
}

/** JSON with object keys sorted at every level, so results.json diffs stay small. */
export function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]));
    return v;
  };
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}

const cell = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'boolean' ? (v ? 'yes' : 'NO') : String(v));

function table(rows: Row[]): string {
  const head = ['id', 'what', 'ours', 'baseline / peer', 'ratio', 'target', 'met'];
  const body = rows.map((r) => [r.id, r.what, r.ours, r.baseline, cell(r.ratio), r.target, cell(r.met)]);
  const widths = head.map((h, i) => Math.min(60, Math.max(h.length, ...body.map((b) => b[i].length))));
  const line = (cols: string[]) => cols.map((c, i) => (c.length > widths[i] ? `${c.slice(0, widths[i] - 1)}…` : c.padEnd(widths[i]))).join(' │ ');
  return [line(head), widths.map((w) => '─'.repeat(w)).join('─┼─'), ...body.map(line)].join('\n');
}

export function markdownTable(rows: Row[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| | What | Ours | Baseline / peer | Ratio | Target | Met |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.id} | ${esc(r.what)} | ${esc(r.ours)} | ${esc(r.baseline)} | ${cell(r.ratio)} | ${esc(r.target)} | ${cell(r.met)} |`),
  ].join('\n');
}

const ORDER = ['P1', 'P2', 'P3', 'P3d', 'P3f', 'P3a', 'P3b', 'P3c', 'P3e', 'P4a', 'P4b', 'P4c', 'P5', 'P6', 'P7', 'P8', 'P9', 'P9a', 'P9b', 'P9c', 'P9d', 'P9e', 'P9f', 'P9g', 'P9r', 'P9rd', 'P9rs', 'S1', 'S2', 'S3'];
export const byId = (a: Row, b: Row) => (ORDER.indexOf(a.id) + 1 || 99) - (ORDER.indexOf(b.id) + 1 || 99) || a.id.localeCompare(b.id);

async function main() {
  if (process.argv.includes('--print')) {
    const file = process.argv.includes('--quick') ? LOCAL_RESULTS : RESULTS;
    const { results } = JSON.parse(fs.readFileSync(file, 'utf8')) as { results: Record<string, Row & { command: string; measuredAt: string }> };
    const rows = Object.values(results).sort(byId);
    console.log(markdownTable(rows));
    console.log(`\nMeasured with: ${[...new Set(rows.map((r) => `\`${r.command}\` (${r.measuredAt.slice(0, 16).replace('T', ' ')} UTC)`))].join(', ')}`);
    return;
  }
  const args = parseArgs(process.argv.slice(2));
  // As it was really invoked: `npm run bench` builds first, a direct tsx run does not.
  const viaNpm = process.env.npm_lifecycle_event === 'bench';
  const extraArgs = process.argv.slice(2);
  const command = viaNpm
    ? ['npm run bench', ...(extraArgs.length ? ['--', ...extraArgs] : [])].join(' ')
    : ['npx tsx test/bench/run.ts', ...extraArgs].join(' ');
  const log = (line: string) => console.log(`  ${line}`);
  const rows: Row[] = [];
  const started = Date.now();
  for (const id of args.only) {
    console.log(`▶ ${id}${args.quick ? ' (quick)' : ''}`);
    const t = Date.now();
    try {
      rows.push(...(await BENCHES[id]({ quick: args.quick, log })));
    } catch (error) {
      // A benchmark that cannot run is reported as such, never silently dropped.
      const message = error instanceof Error ? error.message : String(error);
      console.log(`  ${id} failed to run: ${message}`);
      rows.push({ id, what: `${id} (did not run)`, ours: '—', baseline: '—', ratio: null, target: '—', met: null, note: `Did not run: ${message}` });
    }
    console.log(`  (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  }

  console.log(`\n${table(rows)}\n`);
  for (const r of rows) if (r.note) console.log(`${r.id}: ${r.note}\n`);
  if (args.markdown) console.log(`${markdownTable(rows)}\n`);

  // results.json keeps one entry per benchmark id; a partial run (--only) replaces only its own.
  const file = args.quick ? LOCAL_RESULTS : RESULTS;
  const previous = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { results?: Record<string, unknown> }) : {};
  const measuredAt = new Date(started).toISOString();
  const environment = { node: process.version, cpus: os.cpus().length, platform: `${os.platform()} ${os.arch()}` };
  const results: Record<string, unknown> = { ...(previous.results ?? {}) };
  // (S's rows are S1, S2; S3 is a benchmark of its own, so running S leaves it alone, as P9 leaves P9R's P9r, P9rd, P9rs.)
  for (const id of args.only) for (const key of Object.keys(results)) if (benchOf(key) === id) delete results[key];
  for (const r of rows) results[r.id] = { ...r, command, measuredAt, environment, ...(args.quick ? { quick: true } : {}) };
  fs.writeFileSync(file, stableJson({ about: 'Written by test/bench/run.ts; see test/bench/README.md. Ratios are measured side by side in one run.', results }));
  console.log(`wrote ${path.relative(process.cwd(), file)} (${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
  if (!args.quick) {
    writeReadmes();
    console.log('rewrote the figures in docs/benchmarks.md and test/bench/README.md');
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
