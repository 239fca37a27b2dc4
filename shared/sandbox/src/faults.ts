// Injected faults: what a flaky network or gateway does to a client, on demand.
import { validationError } from './errors';

export const FAULT_KINDS = ['429', '500', '502', 'delay', 'reset-after-commit', 'reset-before-commit'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  kind: FaultKind;
  /** How many times it fires; default 1. `Infinity` or -1 = until cleared. */
  count?: number;
  match?: {
    method?: string;
    /** A string starting with `^` is a regular expression, any other string a path prefix. */
    path?: string | RegExp;
  };
  /** Fire on every Nth matching request only (default 1 = every one). */
  every?: number;
  /** For 'delay': how long to hold the request before processing it (default 1000). */
  delayMs?: number;
  /** For '429': the Retry-After value (default 1). */
  retryAfterSeconds?: number;
}

export interface Fault {
  id: string;
  kind: FaultKind;
  remaining: number;
  every: number;
  seen: number;
  fired: number;
  method: string | null;
  path: RegExp | string | null;
  delayMs: number;
  retryAfterSeconds: number;
}

export interface FaultInfo {
  id: string;
  kind: FaultKind;
  remaining: number | null;
  every: number;
  seen: number;
  fired: number;
  match: { method: string | null; path: string | null };
}

export class Faults {
  private list: Fault[] = [];
  private nextId = 1;

  add(spec: FaultSpec): Fault {
    const fault = parseFault(spec, `fault_${this.nextId++}`);
    this.list.push(fault);
    return fault;
  }

  clear(): void {
    this.list = [];
  }

  info(): FaultInfo[] {
    return this.list.map((f) => ({
      id: f.id,
      kind: f.kind,
      remaining: Number.isFinite(f.remaining) ? f.remaining : null,
      every: f.every,
      seen: f.seen,
      fired: f.fired,
      match: { method: f.method, path: f.path === null ? null : String(f.path) },
    }));
  }

  /**
   * The fault to apply to this request, if any; the first matching fault that is due wins.
   * `relPath` is the path below /api/v1, `fullPath` the whole path: a matcher may use either.
   */
  take(method: string, relPath: string, fullPath: string): Fault | null {
    for (const f of this.list) {
      if (f.method && f.method !== method) continue;
      if (f.path !== null && !pathMatches(f.path, relPath, fullPath)) continue;
      f.seen++;
      if (f.seen % f.every !== 0) continue;
      f.fired++;
      f.remaining--;
      if (f.remaining <= 0) this.list = this.list.filter((x) => x !== f);
      return f;
    }
    return null;
  }
}

function pathMatches(p: RegExp | string, relPath: string, fullPath: string): boolean {
  if (typeof p === 'string') return relPath.startsWith(p) || fullPath.startsWith(p);
  return p.test(relPath) || p.test(fullPath);
}

function parseFault(spec: FaultSpec, id: string): Fault {
  if (!spec || !(FAULT_KINDS as readonly string[]).includes(spec.kind)) {
    throw validationError('kind', `kind must be one of ${FAULT_KINDS.join(', ')}.`);
  }
  const count = spec.count === undefined ? 1 : spec.count === -1 ? Infinity : spec.count;
  if (typeof count !== 'number' || !(count === Infinity || (Number.isInteger(count) && count >= 1))) {
    throw validationError('count', 'count must be a positive integer, or -1 for "until cleared".');
  }
  const every = spec.every ?? 1;
  if (!Number.isInteger(every) || every < 1) throw validationError('every', 'every must be an integer >= 1.');
  let path: RegExp | string | null = null;
  const rawPath = spec.match?.path;
  if (rawPath instanceof RegExp) path = rawPath;
  else if (typeof rawPath === 'string' && rawPath.startsWith('^')) {
    try {
      path = new RegExp(rawPath);
    } catch {
      throw validationError('match.path', `match.path is not a valid regular expression: ${rawPath}`);
    }
  } else if (typeof rawPath === 'string') path = rawPath;
  else if (rawPath !== undefined) throw validationError('match.path', 'match.path must be a string.');
  const delayMs = spec.delayMs ?? 1000;
  const retryAfterSeconds = spec.retryAfterSeconds ?? 1;
  if (typeof delayMs !== 'number' || delayMs < 0) throw validationError('delayMs', 'delayMs must be >= 0.');
  if (!Number.isInteger(retryAfterSeconds) || retryAfterSeconds < 0) {
    throw validationError('retryAfterSeconds', 'retryAfterSeconds must be an integer >= 0.');
  }
  return {
    id,
    kind: spec.kind,
    remaining: count,
    every,
    seen: 0,
    fired: 0,
    method: spec.match?.method ? spec.match.method.toUpperCase() : null,
    path,
    delayMs,
    retryAfterSeconds,
  };
}
