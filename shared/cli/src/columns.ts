import { UsageError } from '@certificate-service/sdk';
import type { BatchVariables } from '@certificate-service/sdk';

/** Edits (insert, delete, replace) from `a` to `b`: how close a typed column is to a variable. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/** The variable a mistyped column most likely meant: at most a third of its letters off (and at least 2 allowed). */
export function closest(column: string, names: readonly string[]): string | undefined {
  const key = column.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(key, name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(key.length / 3)) ? best.name : undefined;
}

export interface ColumnMatch {
  /** Data column as typed (trimmed) → the variable it fills. */
  rename: Map<string, string>;
  /** One per column the design does not name. */
  warnings: string[];
}

/**
 * The CSV's data columns against the batch's variables: a column fills the variable of the
 * same name after trimming, in any case (`Course` fills `course`). A column the design does not
 * list gets a warning naming the closest variable, an error with `strict`. When the design lists
 * no variables (source `none` or `seen`), every column is data and nothing is said.
 */
export function matchColumns(columns: readonly string[], batch: BatchVariables, strict: boolean): ColumnMatch {
  const rename = new Map<string, string>();
  const warnings: string[] = [];
  const names = batch.variables.map((v) => v.name);
  const byKey = new Map(names.map((n) => [n.trim().toLowerCase(), n]));
  const filledBy = new Map<string, string>();
  for (const column of columns) {
    const variable = byKey.get(column.trim().toLowerCase());
    if (variable !== undefined) {
      const other = filledBy.get(variable);
      if (other !== undefined) throw new UsageError(`line 1: the columns "${other}" and "${column}" both fill the variable "${variable}"; keep one.`);
      filledBy.set(variable, column);
      rename.set(column, variable);
    } else if (batch.source === 'design' && names.length > 0) {
      const guess = closest(column, names);
      warnings.push(`\`${column}\`: not a variable of this design; ${guess !== undefined ? `did you mean \`${guess}\`?` : `its variables are ${names.map((n) => `\`${n}\``).join(', ') || 'none'}.`}`);
    }
  }
  // A required variable with no column at all: said once, not once per row.
  const absent = batch.variables.filter((v) => v.required && !filledBy.has(v.name)).map((v) => `"${v.name}"`);
  if (absent.length) throw new UsageError(`line 1: no ${absent.join(' or ')} column, which the design requires (the header has: ${columns.join(', ') || 'name, email only'}). Nothing was sent.`);
  if (strict && warnings.length) throw new UsageError(`line 1 (--strict): ${warnings.join(' ')} Nothing was sent.`);
  return { rename, warnings };
}
