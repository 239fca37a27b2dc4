/**
 * The claim protocol of n8n/nodes/shared/recorded-claims.ts on n8n's deduplication row, checked over
 * every interleaving (no timing): each process makes its calls one at a time, each call reads the
 * row, then writes back what it read plus its keys (deduplication-helper.js). A claim calls
 * [key, token], and if the key was new, other calls, then [token, key] until one of the two was
 * there: token there → it runs (its write stood), key there → another claim has it, neither → again
 * (3 times, then it runs: at least once).
 *
 * Without timing, both claims can run: that is what the 500 ms wait rules out while every read and
 * write are closer than that. What no timing can cause with two processes: neither running it.
 * With a third process writing the row, it can (docs/design/queue-mode.md).
 */
type Outcome = 'runs' | 'drops';

interface Proc {
  /** Calls left, each a list of keys; a claim's confirmations are added as it goes. */
  calls: string[][];
  /** What this process read for its call under way (undefined: its next step is a read). */
  read?: ReadonlySet<string>;
  claimer: boolean;
  confirmations: number;
  outcome?: Outcome;
}

/** The claims' outcomes at every end state ("drops,runs"…): `claimers` processes claiming K, each with `otherCalls` calls for other keys before and after its claim, and `writers` processes making `writerCalls` calls for other keys. */
function explore(claimers: number, otherCalls: number, writers = 0, writerCalls = 0): Set<string> {
  const ends = new Set<string>();
  const seen = new Set<string>();
  const token = (p: number) => `T${p}`;
  const others = (p: number, tag: string, n: number) => Array.from({ length: n }, (_, i) => [`X${p}${tag}${i}`]);
  const start: Proc[] = [
    ...Array.from({ length: claimers }, (_, p): Proc => ({ calls: [...others(p, 'a', otherCalls), ['K', token(p)], ...others(p, 'b', otherCalls), [token(p), 'K']], claimer: true, confirmations: 1 })),
    ...Array.from({ length: writers }, (_, w): Proc => ({ calls: others(claimers + w, 'w', writerCalls), claimer: false, confirmations: 0 })),
  ];
  const visit = (row: ReadonlySet<string>, procs: Proc[]): void => {
    const id = JSON.stringify([[...row].sort(), procs.map((p) => [p.calls, p.read && [...p.read].sort(), p.confirmations, p.outcome])]);
    if (seen.has(id)) return;
    seen.add(id);
    let moved = false;
    procs.forEach((p, i) => {
      if (p.calls.length === 0) return;
      moved = true;
      const next = procs.slice();
      if (!p.read) {
        next[i] = { ...p, read: row };
        return visit(row, next);
      }
      const [keys, ...rest] = p.calls;
      const written = new Set([...p.read, ...keys]);
      let after: Proc = { ...p, calls: rest, read: undefined };
      if (p.claimer && keys[0] === 'K' && p.read.has('K')) after = { ...after, calls: [], outcome: 'drops' };
      else if (p.claimer && keys[0] === token(i)) {
        if (p.read.has(token(i))) after = { ...after, outcome: 'runs' };
        else if (p.read.has('K')) after = { ...after, outcome: 'drops' };
        else if (p.confirmations >= 3) after = { ...after, outcome: 'runs' };
        else after = { ...after, calls: [keys], confirmations: p.confirmations + 1 };
      }
      next[i] = after;
      visit(written, next);
    });
    if (!moved) ends.add(procs.filter((p) => p.claimer).map((p) => p.outcome).sort().join(','));
  };
  visit(new Set(), start);
  return ends;
}

test('two processes, each calling one at a time: some claim always runs the occurrence, whatever the interleaving', () => {
  for (const otherCalls of [0, 1, 2]) {
    const ends = explore(2, otherCalls);
    expect(ends.has('drops,drops')).toBe(false);
    expect(ends.has('drops,runs')).toBe(true);
  }
}, 60_000);

test('a third process writing the row can make both claims drop it (the limit docs/design/queue-mode.md states)', () => {
  expect(explore(2, 0, 1, 2).has('drops,drops')).toBe(true);
});
