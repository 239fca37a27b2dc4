import { validationError } from './errors';
import type { DesignVariable } from './variables';

// A certificate's data keys against the design's variables, for every host's issue plan: a key
// fills the variable of the same name after trimming, in any case (`Course` fills `course`, sent
// as the design spells it); a key the design does not list is refused, naming the closest
// variable, because the service would print it as it is ("compeltedOn 2026-11-01") and a run
// again skips what it issued. Only a design's own list counts: names seen in a batch's
// certificates (`source: 'seen'`) are no list of what is allowed.

/** Edits (insert, delete, replace) from `a` to `b`: how close a typed name is to a variable. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/** The name a mistyped one most likely meant (any case): at most a third of its letters off, and at least 2 allowed. */
export function closest(typed: string, names: readonly string[]): string | undefined {
  const key = typed.trim().toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(key, name.trim().toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(key.length / 3)) ? best.name : undefined;
}

const keyOf = (name: string): string => name.trim().toLowerCase();

/** The variables a design lists, by matching key; undefined when it lists none (or only names seen in a batch). */
export interface VariableNames {
  names: string[];
  byKey: Map<string, string[]>;
  /** Each key's match, worked out once: a list's rows mostly repeat the same keys. */
  matched: Map<string, VariableMatch>;
}

export function variableNames(variables: ReadonlyArray<DesignVariable>): VariableNames | undefined {
  const names = variables.filter((v) => v.source !== 'seen').map((v) => v.name);
  if (!names.length) return undefined;
  const byKey = new Map<string, string[]>();
  for (const name of names) byKey.set(keyOf(name), [...(byKey.get(keyOf(name)) ?? []), name]);
  return { names, byKey, matched: new Map() };
}

/** What one key fills: a variable; none (with the closest, when one is near); or two or more at once. */
export type VariableMatch = { kind: 'variable'; name: string } | { kind: 'unknown'; closest?: string } | { kind: 'ambiguous'; names: string[] };

export function matchVariable(key: string, known: VariableNames): VariableMatch {
  let match = known.matched.get(key);
  if (match) return match;
  const found = known.byKey.get(keyOf(key)) ?? [];
  if (found.length === 1) match = { kind: 'variable', name: found[0] };
  else if (found.length > 1) match = { kind: 'ambiguous', names: found };
  else {
    const guess = closest(key, known.names);
    match = { kind: 'unknown', ...(guess !== undefined ? { closest: guess } : {}) };
  }
  known.matched.set(key, match);
  return match;
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');
const SHOWN_NAMES = 10;

/** Why a key the design does not list is refused, with the variable it most likely meant. */
export function unknownVariableProblem(key: string, match: Extract<VariableMatch, { kind: 'unknown' }>, known: VariableNames): string {
  const listed = known.names.length > SHOWN_NAMES ? `${quoted(known.names.slice(0, SHOWN_NAMES))}, …` : quoted(known.names);
  return `"${key}" is not a variable of the certificate design; ${match.closest !== undefined ? `did you mean "${match.closest}"?` : `its variables are ${listed}`}`;
}

/**
 * An item's data keyed as the design spells its variables, before anything is sent. Refused (a
 * VALIDATION_ERROR on `<field>.<key>`): a key that matches two variables (the design has `Course`
 * and `course`), two keys that fill one variable, and, unless `allowUnknown`, a key that matches
 * none (the first is the field; the message names every one). With `allowUnknown` such a key is
 * sent as given.
 */
export function matchVariableNames(data: Readonly<Record<string, string>>, known: VariableNames, options: { allowUnknown?: boolean; field?: string } = {}): Record<string, string> {
  const field = options.field ?? 'data';
  // No prototype: a variable may be called `__proto__`.
  const out = Object.create(null) as Record<string, string>;
  const filledBy = new Map<string, string>();
  const unknown: string[] = [];
  let firstUnknown: Extract<VariableMatch, { kind: 'unknown' }> | undefined;
  for (const [key, value] of Object.entries(data)) {
    const match = matchVariable(key, known);
    if (match.kind === 'ambiguous') {
      throw validationError(`${field}.${key}`, `"${key}" matches ${match.names.length} variables of the certificate design (${quoted(match.names)}), which differ only in letter case or spaces, so it is not sent`, { variables: match.names });
    }
    if (match.kind === 'unknown') {
      if (options.allowUnknown) out[key] = value;
      else if (unknown.push(key) === 1) firstUnknown = match;
      continue;
    }
    const other = filledBy.get(match.name);
    if (other !== undefined) throw validationError(`${field}.${key}`, `"${other}" and "${key}" both fill the variable "${match.name}"; keep one`);
    filledBy.set(match.name, key);
    out[match.name] = value;
  }
  if (firstUnknown) {
    const [first, ...rest] = unknown;
    const also = rest.length ? ` (also not variables of the design: ${rest.map((k) => `${field}.${k}`).join(', ')})` : '';
    throw validationError(`${field}.${first}`, `${unknownVariableProblem(first, firstUnknown, known)}${also}`, { unknownVariables: unknown });
  }
  return out;
}
