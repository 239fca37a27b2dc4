// The benchmark figures in docs/benchmarks.md and test/bench/README.md are generated from
// test/bench/results.json, between marker comments, so no figure is typed by hand
// (test/bench/readme.docs.test.ts fails when they differ). `npm run bench` rewrites them after each run; `npm run bench:readme` on its own.
// docs/ gets a summary (ratio, target, met); test/bench/README.md, next to the definitions, the
// full table and the benchmark's own note on each missed target.
import fs from 'node:fs';
import path from 'node:path';
import type { Row } from './measure';
import { byId, markdownTable } from './run';
import { replaceMarkedBlock } from '../support/files';

type Result = Row & { command: string; measuredAt: string; environment?: { cpus?: number } };

export const RESULTS = path.join(__dirname, 'results.json');
const ROOT = path.resolve(__dirname, '../..');
/** Where a block goes: the full table with the notes on missed targets, or the summary. */
export const TARGETS: Array<{ file: string; full: boolean }> = [
  { file: path.join(ROOT, 'docs/benchmarks.md'), full: false },
  { file: path.join(__dirname, 'README.md'), full: true },
];
const BEGIN = '<!-- bench:begin: generated from test/bench/results.json by `npm run bench:readme`; do not edit -->';
const END = '<!-- bench:end -->';

const mark = (met: boolean | null) => (met === null ? '—' : met ? 'yes' : 'NO');

export function benchBlock(results: Record<string, Result>, full: boolean): string {
  const rows = Object.values(results).sort(byId);
  const failed = rows.filter((r) => r.met === false);
  if (!full) {
    const dates = rows.map((r) => r.measuredAt.slice(0, 10)).sort();
    const table = ['| | Ratio | Target | Met |', '|---|---|---|---|', ...rows.map((r) => `| ${r.id} | ${r.ratio ?? '—'} | ${r.target.replace(/\|/g, '\\|')} | ${mark(r.met)} |`)];
    return `${BEGIN}\n${table.join('\n')}\n\nMeasured ${dates[0]} to ${dates.at(-1)}. Missed: ${failed.map((r) => r.id).join(', ') || 'none'}.\n${END}`;
  }
  const when = (r: Result) => `\`${r.command}\` (${r.measuredAt.slice(0, 16).replace('T', ' ')} UTC)`;
  const lines = [markdownTable(rows), '', `Measured with: ${[...new Set(rows.map(when))].join(', ')}.`];
  if (failed.length) {
    lines.push('', 'Where a target is missed, in the words the benchmark wrote with its figures:', '');
    for (const r of failed) lines.push(`- **${r.id}** (${r.ratio ?? 'no ratio'} against ${r.target}): ${r.note ?? 'no note was recorded.'}`);
  }
  return `${BEGIN}\n${lines.join('\n')}\n${END}`;
}

/** The file's text with its block replaced by `block`; throws when the markers are missing. */
export function withBlock(text: string, block: string, file: string): string {
  return replaceMarkedBlock(text, BEGIN, END, block, file);
}

export function readResults(): Record<string, Result> {
  return (JSON.parse(fs.readFileSync(RESULTS, 'utf8')) as { results: Record<string, Result> }).results;
}

export function writeReadmes(): void {
  const results = readResults();
  for (const { file, full } of TARGETS) fs.writeFileSync(file, withBlock(fs.readFileSync(file, 'utf8'), benchBlock(results, full), file));
}

if (require.main === module) writeReadmes();
