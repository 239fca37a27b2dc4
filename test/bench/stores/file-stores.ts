// fileStore on SQLite against the JSON-lines store it replaced (jsonl-file-store.cjs), side by
// side in one run: `npx tsx test/bench/stores/file-stores.ts [--keys N]` (build first: the
// processes load the built SDK). Prints numbers; not a timed test.
// - one process: claim + settle(true) of N new keys, rounds alternating which store goes first;
// - four processes on one file, each its own N/4 keys: claims + settles per second over the wall
//   time from the first start to the last end;
// - four processes on one file, one shared list of keys, each process restarting every 500 keys,
//   a tenth of first attempts failing: what the earlier store got wrong (keys run more than once,
//   acknowledged claims a reopened store no longer has), and what SQLite costs for it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileStore } from '@certificate-service/sdk';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { jsonlFileStore } = require('./jsonl-file-store.cjs') as { jsonlFileStore(file: string): { claim(k: string): string; settle(k: string, ok: boolean): void; close(): void } };

const ROOT = path.resolve(__dirname, '../../..');
const WORKER = path.join(ROOT, 'test/sdk/stores/support/store-worker.cjs');
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const KEYS = arg('--keys', 4_000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-file-stores-'));
type Kind = 'sqlite' | 'jsonl';
const open = (kind: Kind, file: string) => (kind === 'sqlite' ? fileStore(file) : jsonlFileStore(file));
let n = 0;
const fresh = (kind: Kind) => path.join(dir, `${kind}-${n++}.${kind === 'sqlite' ? 'db' : 'jsonl'}`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const perSecond = (ops: number, ms: number) => Math.round((ops * 1000) / ms);

function oneProcess(kind: Kind): number {
  const store = open(kind, fresh(kind));
  const started = performance.now();
  for (let i = 0; i < KEYS; i++) {
    store.claim(`key_${i}`);
    store.settle(`key_${i}`, true);
  }
  const ms = performance.now() - started;
  store.close();
  return perSecond(2 * KEYS, ms);
}

interface Counts {
  taken: number;
  pending: number;
  done: number;
  released: number;
  acked: number;
  started: number;
  ended: number;
}

async function processes(kind: Kind, config: Record<string, unknown>): Promise<{ counts: Counts[]; file: string; effects: string; acked: string }> {
  const file = fresh(kind);
  const effects = `${file}.effects`;
  const acked = `${file}.acked`;
  const goFlag = `${file}.go`;
  const outs = [0, 1, 2, 3].map((worker) => {
    const child = spawn(process.execPath, [WORKER, JSON.stringify({ mode: 'hammer', store: kind, file, worker, passes: 1, effects, acked, goFlag, ...config })], { cwd: ROOT });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    return { out: () => out, exited: new Promise<number | null>((resolve) => child.on('exit', resolve)) };
  });
  while (!outs.every((o) => o.out().includes('ready'))) await new Promise((resolve) => setTimeout(resolve, 20));
  fs.writeFileSync(goFlag, '');
  const codes = await Promise.all(outs.map((o) => o.exited));
  if (codes.some((c) => c !== 0)) throw new Error(`a ${kind} process failed:\n${outs.map((o) => o.out()).join('\n')}`);
  return { counts: outs.map((o) => JSON.parse(o.out().trim().split('\n').pop()!) as Counts), file, effects, acked };
}

const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const wall = (counts: Counts[]) => Math.max(...counts.map((c) => c.ended)) - Math.min(...counts.map((c) => c.started));
const ops = (counts: Counts[]) => counts.reduce((sum, c) => sum + c.taken + c.pending + c.done + c.released + c.acked, 0);

async function main() {
  console.log(`Node ${process.versions.node}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}; ${KEYS} keys; files in ${dir}`);
  const one: Record<Kind, number[]> = { sqlite: [], jsonl: [] };
  for (let round = 0; round < 3; round++) for (const kind of (round % 2 ? ['jsonl', 'sqlite'] : ['sqlite', 'jsonl']) as Kind[]) one[kind].push(oneProcess(kind));
  console.log(`one process, claim+settle per second: sqlite ${median(one.sqlite)}, jsonl ${median(one.jsonl)}; ratio sqlite/jsonl ${(median(one.sqlite) / median(one.jsonl)).toFixed(3)} (rounds: ${JSON.stringify(one)})`);

  const four: Record<Kind, number> = { sqlite: 0, jsonl: 0 };
  for (const kind of ['sqlite', 'jsonl'] as Kind[]) {
    const { counts } = await processes(kind, { keys: KEYS / 4, distinct: true });
    four[kind] = perSecond(ops(counts), wall(counts));
  }
  console.log(`four processes, one file, own keys, claims+settles per second: sqlite ${four.sqlite}, jsonl ${four.jsonl}; ratio sqlite/jsonl ${(four.sqlite / four.jsonl).toFixed(3)}`);

  for (const kind of ['jsonl', 'sqlite'] as Kind[]) {
    const { counts, file, effects, acked } = await processes(kind, { keys: KEYS, failEvery: 10, reopenEvery: 500 });
    const runs = new Map<string, number>();
    for (const line of lines(effects)) runs.set(line.split(' ')[0], (runs.get(line.split(' ')[0]) ?? 0) + 1);
    const ack = lines(acked);
    const store = open(kind, file);
    const lost = ack.filter((key) => store.claim(key) !== 'done').length;
    store.close();
    console.log(
      `four processes, one shared list of ${KEYS} keys, restarting every 500: ${kind}: ${ack.length} acknowledged, ${[...runs.values()].filter((x) => x > 1).length} keys run more than once, ` +
        `${lost} acknowledged claims lost, ${perSecond(ops(counts), wall(counts))} claims+settles per second`,
    );
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

void main();
