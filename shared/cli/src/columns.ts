import { matchVariable, UsageError, variableNames, type BatchVariables, type VariableMatch, type VariableNames } from '@certificate-service/sdk';

export interface ColumnMatch {
  /** Data column as typed (trimmed) → the variable it fills. */
  rename: Map<string, string>;
  /** With --allow-unknown-columns, one per column the design does not list (sent as it is). */
  warnings: string[];
}

/** A column the design does not list, in the CLI's words, with the variable it most likely meant. */
function unknownColumn(column: string, match: Extract<VariableMatch, { kind: 'unknown' }>, known: VariableNames): string {
  return `\`${column}\`: not a variable of this design; ${match.closest !== undefined ? `did you mean \`${match.closest}\`?` : `its variables are ${known.names.map((n) => `\`${n}\``).join(', ')}.`}`;
}

/**
 * The CSV's header against the design's variables, matched as the core's issue plan matches
 * `data` keys (variable-names.ts in the SDK): a column fills the variable of the same name after
 * trimming, in any case (`Course` fills `course`). Said once, at line 1: two columns that fill one
 * variable, and a required variable no column fills. A column the design does not list is left as
 * it is: the core refuses every row that fills it (naming the closest variable), unless
 * `allowUnknown`, which sends it and warns here. When the design lists no variables, every column
 * is data and nothing is said.
 */
export function matchColumns(columns: readonly string[], batch: BatchVariables, allowUnknown: boolean): ColumnMatch {
  const rename = new Map<string, string>();
  const known = batch.source === 'design' ? variableNames(batch.variables) : undefined;
  if (!known) return { rename, warnings: [] };
  const unknown: string[] = [];
  const filledBy = new Map<string, string>();
  for (const column of columns) {
    const match = matchVariable(column, known);
    if (match.kind === 'variable') {
      const other = filledBy.get(match.name);
      if (other !== undefined) throw new UsageError(`line 1: the columns "${other}" and "${column}" both fill the variable "${match.name}"; keep one.`);
      filledBy.set(match.name, column);
      rename.set(column, match.name);
    } else if (match.kind === 'unknown') {
      unknown.push(unknownColumn(column, match, known));
    }
    // A column that matches two variables stays as typed: the core refuses each row that fills it, naming both.
  }
  // A required variable with no column at all: said once, not once per row.
  const absent = batch.variables.filter((v) => v.required && !filledBy.has(v.name)).map((v) => `"${v.name}"`);
  if (absent.length) {
    throw new UsageError(`line 1: no ${absent.join(' or ')} column, which the design requires (the header has: ${columns.join(', ') || 'name, email only'}).${unknown.map((u) => ` ${u}`).join('')} Nothing was sent.`);
  }
  return { rename, warnings: allowUnknown ? unknown.map((u) => `${u} Sent as it is (--allow-unknown-columns).`) : [] };
}
