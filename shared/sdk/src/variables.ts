import type { Api } from './client/api';
import { getBatch } from './client/batches';
import { listRecipients } from './client/recipients';
import { DESIGN_LIST } from './client/designs';
import { iterateList } from './client/list';
import { unexpected, type ResponseContext } from './decode';
import { validationError } from './errors';
import type { Design } from './types';

// A certificate's variables (course, score, date…) as the batch's design names them. The
// spec shows no field of a design beyond its id, so every plausible shape is read (see
// VARIABLE_KEYS and readVariables); a shape none of them fits is UNEXPECTED_RESPONSE, never
// "no variables". A design that says nothing is not an error: the names are then learned
// from the batch's most recent certificates, and when that gives nothing either, the hosts
// keep their free-form input.

/** Where a design may list its variables, tried in this order. */
export const VARIABLE_KEYS = ['variables', 'fields', 'attributes', 'placeholders', 'dynamicFields'] as const;
const NAME_KEYS = ['name', 'key', 'id'] as const;

export interface DesignVariable {
  name: string;
  /** The design's label, else the name. */
  label: string;
  required: boolean;
  /** The design's type word as given (text, date, number…); the service takes every value as a string. */
  type?: string;
  default?: string;
  /** `design`: the design lists it; `seen`: learned from the batch's certificates ("seen in this batch"). */
  source: 'design' | 'seen';
}

export interface BatchVariables {
  batchId: string;
  designId: string;
  /** `none`: neither the design nor the batch's certificates name any; hosts keep free-form input. */
  source: 'design' | 'seen' | 'none';
  variables: DesignVariable[];
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** An optional string attribute of a variable; anything but a string or a number is unreadable. */
function optionalText(entry: Record<string, unknown>, key: string, fail: (what: string) => never): string | undefined {
  const v = entry[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return fail(`"${key}" as text (it is ${Array.isArray(v) ? 'a list' : `a ${typeof v}`})`);
}

function readEntry(name: string, entry: Record<string, unknown>, fail: (what: string) => never): DesignVariable {
  const required = entry.required ?? entry.isRequired ?? false;
  if (typeof required !== 'boolean' && required !== 'true' && required !== 'false') fail(`"required" as true or false (it is a ${typeof required})`);
  const label = optionalText(entry, 'label', fail)?.trim();
  const type = optionalText(entry, 'type', fail);
  const dflt = optionalText(entry, 'default', fail);
  return {
    name,
    label: label || name,
    required: required === true || required === 'true',
    ...(type ? { type } : {}),
    ...(dflt !== undefined ? { default: dflt } : {}),
    source: 'design',
  };
}

/**
 * The variables a design lists, or undefined when it lists none (no known key, or an empty
 * list or map). Read shapes, under the first of VARIABLE_KEYS that is present:
 * - a list of names: `["course", "score"]`;
 * - a list of objects named by `name`, `key` or `id`, with optional `label`, `required`,
 *   `type` and `default`;
 * - a map of name to such an object: `{ "course": { "required": true } }`.
 * Anything else throws UNEXPECTED_RESPONSE naming what came back (kinds and keys, never values).
 */
export function readVariables(design: Design, context: ResponseContext): DesignVariable[] | undefined {
  const key = VARIABLE_KEYS.find((k) => design[k] !== undefined && design[k] !== null);
  if (!key) return undefined;
  const raw = design[key];
  const expected = `the variables of design ${design.id} under "${key}": a list of names or of objects with "name", "key" or "id", or a map of names to such objects`;
  const fail = (value: unknown, what: string): never => {
    throw unexpected(context, value, `${expected} (${what})`);
  };
  const out: DesignVariable[] = [];
  const add = (v: DesignVariable) => {
    if (!out.some((o) => o.name === v.name)) out.push(v); // a repeated name: the first one counts
  };
  if (Array.isArray(raw)) {
    raw.forEach((entry, i) => {
      if (typeof entry === 'string' && entry.trim()) return add({ name: entry.trim(), label: entry.trim(), required: false, source: 'design' });
      if (!isObject(entry)) return fail(entry, `entry ${i} is neither a name nor an object`);
      const nameKey = NAME_KEYS.find((k) => typeof entry[k] === 'string' && (entry[k] as string).trim());
      if (!nameKey) return fail(entry, `entry ${i} has no "name", "key" or "id"`);
      add(readEntry((entry[nameKey] as string).trim(), entry, (what) => fail(entry, `entry ${i}: ${what}`)));
    });
  } else if (isObject(raw)) {
    for (const [name, entry] of Object.entries(raw)) {
      if (!name.trim()) fail(raw, 'a variable with an empty name');
      if (entry === true || entry === null) add({ name, label: name, required: false, source: 'design' });
      else if (isObject(entry)) add(readEntry(name, entry, (what) => fail(entry, `"${name.slice(0, 40)}": ${what}`)));
      else fail(entry, `"${name.slice(0, 40)}" is not an object`);
    }
  } else {
    fail(raw, 'it is neither a list nor a map');
  }
  return out.length ? out : undefined;
}

/**
 * The design's entry in GET /designs (paged; the spec has no GET /designs/{id}), with its
 * variables read while the answer's context is at hand, or undefined when no page has it.
 */
async function findDesign(api: Api, designId: string): Promise<{ found: boolean; variables?: DesignVariable[] }> {
  // Every item stays (a walk ends on an empty page); only the wanted one is read.
  const designs = iterateList(api, {
    ...DESIGN_LIST,
    read: (d, context) => (d.id === designId ? { wanted: true, variables: readVariables(d as Design, context) } : { wanted: false }),
  });
  for await (const d of designs) if (d.wanted) return { found: true, variables: d.variables };
  return { found: false };
}

/** Names used in the `data` of the batch's most recent certificates (one page), most recent first. */
async function seenInBatch(api: Api, batchId: string): Promise<DesignVariable[]> {
  const names: string[] = [];
  for (const r of (await listRecipients(api, batchId)).items) {
    if (isObject(r.data)) for (const name of Object.keys(r.data)) if (name.trim() && !names.includes(name)) names.push(name);
  }
  return names.map((name) => ({ name, label: name, required: false, source: 'seen' as const }));
}

/**
 * A batch's certificate variables: its design's, or else the names seen in the batch's most
 * recent certificates, or else none. Two or three reads (the batch, the designs' pages until
 * its design, one page of certificates); nothing is issued.
 */
export async function getBatchVariables(api: Api, batchId: string): Promise<BatchVariables> {
  const { batch, designId, variables } = await readDesign(api, batchId);
  if (variables) return { batchId: batch.id, designId, source: 'design', variables };
  const seen = await seenInBatch(api, batch.id);
  return { batchId: batch.id, designId, source: seen.length ? 'seen' : 'none', variables: seen };
}

/** The batch, then its design's variables (undefined: no design, not listed, or it names none). */
async function readDesign(api: Api, batchId: string): Promise<{ batch: { id: string }; designId: string; variables?: DesignVariable[] }> {
  const batch = await getBatch(api, batchId);
  const designId = typeof batch.designId === 'string' ? batch.designId : '';
  const design = designId ? await findDesign(api, designId) : { found: false };
  return { batch, designId, variables: design.variables };
}

/**
 * What the issue plan checks: the variables the batch's design lists, with `required` as the
 * design says, or [] when it lists none (only a design can require a variable, so the names
 * seen in the batch are not read). Two reads or more: the batch, the designs' pages until its
 * design. A design whose variables cannot be read throws UNEXPECTED_RESPONSE, never [].
 */
export async function getDesignVariables(api: Api, batchId: string): Promise<DesignVariable[]> {
  return (await readDesign(api, batchId)).variables ?? [];
}

const isEmpty = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && !v.trim());

/**
 * Checks the variables about to be sent against the design's required ones, before any
 * request: a required variable left empty is a VALIDATION_ERROR on `data.<name>` (the first
 * one; the message lists all). With `partial` (an update, which keeps what it does not
 * send), only variables given empty count as missing.
 */
export function checkRequiredVariables(
  variables: ReadonlyArray<DesignVariable>,
  data: Record<string, unknown> | undefined,
  options: { partial?: boolean; field?: string } = {},
): void {
  const field = options.field ?? 'data';
  // Own keys only: a variable called `constructor` or `toString` is not "given" by Object.prototype.
  const given = (name: string): unknown => (data && Object.hasOwn(data, name) ? data[name] : undefined);
  const missing = variables.filter((v) => v.required && (options.partial ? !!data && Object.hasOwn(data, v.name) && isEmpty(given(v.name)) : isEmpty(given(v.name))));
  if (!missing.length) return;
  const [first, ...rest] = missing;
  const also = rest.length ? ` (also required and empty: ${rest.map((v) => `${field}.${v.name}`).join(', ')})` : '';
  throw validationError(`${field}.${first.name}`, `"${first.label}" is required by the certificate design and is empty${also}`);
}
