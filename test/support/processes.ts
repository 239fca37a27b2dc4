// Processes by PID, read from /proc (Linux only): to find and stop what a test started.
import * as fs from 'node:fs';
import { answers } from './net';
import { until } from './until';

/**
 * PIDs of the live processes whose environment contains `marker` (e.g.
 * `N8N_USER_FOLDER=/tmp/certsvc-n8n-abc`), from /proc; Linux only ([] elsewhere).
 * n8n passes only a few variables to its task runners, so use `withDescendants` to find those.
 */
export function processesWithEnv(marker: string): number[] {
  if (process.platform !== 'linux') return [];
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (environ.split('\0').includes(marker)) {
      // A zombie has an empty environ, so a match is a live process; skip ourselves anyway.
      if (Number(entry) !== process.pid) pids.push(Number(entry));
    }
  }
  return pids;
}

/** `pids` and all their descendants (by parent PID, from /proc); Linux only. */
export function withDescendants(pids: number[]): number[] {
  if (process.platform !== 'linux') return pids;
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(entry));
    children.set(stat.ppid, list);
  }
  const out = new Set<number>();
  const queue = [...pids];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (out.has(pid)) continue;
    out.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return [...out];
}

/** The PIDs among `pids` that are still running (zombies count as gone); Linux only. */
export function alive(pids: number[]): number[] {
  if (process.platform !== 'linux') return [];
  return pids.filter((pid) => {
    const stat = readStat(pid);
    return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
  });
}

function readStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    // "pid (comm) state ppid ...": comm may contain spaces and parentheses, so split after the last ')'.
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/**
 * SIGTERMs `pid` (what `kill <pid>` does) and waits until nothing answers on `port` and every
 * process of its tree (as it was before the kill) has ended; returns that tree. What is left
 * when a wait fails is SIGKILLed.
 */
export async function sigtermStops(pid: number, port: number): Promise<number[]> {
  const tree = withDescendants([pid]);
  try {
    process.kill(pid, 'SIGTERM');
    await until('the port to close', async () => !(await answers(port)), 10_000);
    await until('every process of the tree to end', () => alive(tree).length === 0, 10_000);
    return tree;
  } finally {
    for (const p of alive(tree)) process.kill(p, 'SIGKILL');
  }
}
