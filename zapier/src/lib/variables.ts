import type { Bundle, PlainInputField, ZObject } from 'zapier-platform-core';
import { checkRequiredVariables, type BatchVariables, type CertificateServiceClient, type DesignVariable } from '@certificate-service/sdk/core';
import { clientFor } from './client';
import { dataField, dict, flag, text } from './inputs';

// The batch's design variables as named input fields (a dynamic-fields function that the
// batch field's `altersDynamicFields` re-runs), plus the free-form `data` dict: named
// "Other Variables" next to them, or "Certificate Variables" alone when they cannot load.
// The dict keeps its key `data`, so Zaps made before named fields keep their values.

export const VARIABLE_PREFIX = 'variable__';

/**
 * The opt-out of the core's refusal of a variable the design does not list (a typo such as
 * `compeltedOn` would be printed on the certificate, and a run again skips what was issued).
 * Shown with every free-form dict but where the design lists none (then nothing is refused).
 */
export const allowUnknownField: Field = {
  key: 'allow_unknown_variables',
  label: 'Send Variables the Design Does Not List',
  type: 'boolean',
  default: 'false',
  helpText:
    "With **False** (the default), a variable name the batch's design does not list (a typo such as `compeltedOn` for `completedOn`) fails the step before anything is sent, naming the closest variable; names match in any case (`Course` fills `course`). Choose **True** only if the design's list of variables is incomplete, or the service takes that data on purpose: such names are then sent as given.",
};

/** The step's "Send Variables the Design Does Not List": issueMany's `allowUnknownVariables`. */
export function allowsUnknownVariables(inputData: Record<string, unknown>): boolean {
  return flag(inputData[allowUnknownField.key]) === true;
}

type Field = PlainInputField;

export interface VariableFieldsOptions {
  /** Update: a named field left empty keeps the certificate's value, so none is required. */
  partial?: boolean;
  /** Bulk: these are the variables shared by every line. */
  shared?: boolean;
}

/** A batch ID typed or picked in the editor; a mapped value (`{{…}}`) is only known when the Zap runs. */
export function literalBatchId(value: unknown): string | undefined {
  const id = text(value);
  return id && !id.includes('{{') && !/\s/.test(id) ? id : undefined;
}

function freeForm(why: string, options: VariableFieldsOptions): Field {
  const scope = options.shared ? 'Variables that are the same on every certificate, by name. A line\'s own variables take precedence.' : dataField.helpText;
  return { ...dataField, ...(options.shared ? { label: 'Variables for Every Certificate' } : {}), helpText: `${scope} ${why}` };
}

function namedField(v: DesignVariable, options: VariableFieldsOptions): Field {
  const where = v.source === 'seen' ? 'Seen in this batch\'s recent certificates (the design does not list its variables).' : 'From the batch\'s certificate design.';
  const must = v.required ? (options.partial ? ' The design requires it: leave empty to keep the current value.' : ' The design requires it.') : '';
  const type = v.type ? ` Type: ${v.type}.` : '';
  const every = options.shared ? ' The same on every certificate, unless a line gives its own.' : '';
  return {
    key: `${VARIABLE_PREFIX}${v.name}`,
    label: v.label,
    // Bulk lines may carry it in their own JSON, so the shared field is never required.
    required: v.required && !options.partial && !options.shared,
    ...(v.default !== undefined && !options.partial ? { default: v.default } : {}),
    helpText: `\`${v.name}\`: ${where}${must}${type}${every}`,
  };
}

/** The fields for a batch's variables, or the free-form dict with the reason it is shown. */
export function variableFields(found: BatchVariables | { error: string } | { mapped: true } | { none: true }, options: VariableFieldsOptions): Field[] {
  // Issuing refuses a name the design does not list (Update does not check names): the opt-out
  // goes with every dict where the design may list variables, known here or read at run time.
  const optOut = options.partial ? [] : [allowUnknownField];
  if ('mapped' in found) return [freeForm('The batch is mapped from an earlier step, so its design\'s variables cannot be listed here: enter them by name.', options), ...optOut];
  if ('none' in found) return [freeForm('Choose a batch to see its design\'s variables as fields.', options), ...optOut];
  if ('error' in found) return [freeForm(`The batch's variables could not be loaded (${found.error}): enter them by name.`, options), ...optOut];
  if (found.source === 'none') return [freeForm('The batch\'s design lists no variables and its certificates use none yet: enter them by name.', options)];
  const refuses = !options.partial && found.source === 'design';
  const other: Field = {
    ...dataField,
    label: 'Other Variables',
    helpText: refuses
      ? 'More variables by name. A name the design does not list fails the step unless "Send Variables the Design Does Not List" is True. A named field above takes precedence over the same name here (in any case).'
      : 'Variables not listed above, by name. A named field above takes precedence over the same name here (in any case).',
  };
  return [...found.variables.map((v) => namedField(v, options)), other, ...(refuses ? optOut : [])];
}

/** The dynamic input-field function: loads the chosen batch's variables (three reads, nothing issued). */
export function loadVariableFields(options: VariableFieldsOptions = {}) {
  return async (z: ZObject, bundle: Bundle): Promise<Field[]> => {
    const raw = bundle.inputData?.batch_id;
    if (text(raw) === undefined) return variableFields({ none: true }, options);
    const batchId = literalBatchId(raw);
    if (!batchId) return variableFields({ mapped: true }, options);
    try {
      return variableFields(await clientFor(z, bundle).getBatchVariables(batchId), options);
    } catch (error) {
      // The editor must still offer a way in: the free-form dict, and why. The core's message is redacted.
      return variableFields({ error: error instanceof Error ? error.message.replace(/[.\s]*$/, '') : 'unknown error' }, options);
    }
  };
}

/** The named variables given (non-empty), by name. */
export function namedVariables(inputData: Record<string, unknown>): Record<string, unknown> {
  // No prototype: a variable named `__proto__` is a key like any other, not the object's prototype.
  const out = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(inputData)) {
    if (key.startsWith(VARIABLE_PREFIX) && key.length > VARIABLE_PREFIX.length && text(value) !== undefined) out[key.slice(VARIABLE_PREFIX.length)] = value;
  }
  return out;
}

/**
 * The certificate's `data`: the "Other Variables" dict (or JSON text) with the named fields
 * over it; undefined when neither gives anything. The core validates the values. A dict key
 * that is a named field's name in another case (`Course` beside `course`) gives way too: the
 * core matches names in any case, and would refuse the two as filling one variable.
 */
export function combinedData(inputData: Record<string, unknown>): Record<string, unknown> | string | undefined {
  const other = dict(inputData.data) as Record<string, unknown> | string | undefined;
  const named = namedVariables(inputData);
  if (!Object.keys(named).length) return other;
  let given: unknown = other;
  if (typeof other === 'string') {
    // JSON text in the dict's place (mapped from a step): read so the named fields can go over it.
    try {
      given = JSON.parse(other);
    } catch {
      return other; // the core refuses it, naming the field
    }
    if (!given || typeof given !== 'object' || Array.isArray(given)) return other;
  }
  const namedKeys = new Set(Object.keys(named).map((k) => k.trim().toLowerCase()));
  const rest = Object.entries((given ?? {}) as Record<string, unknown>).filter(([k]) => !namedKeys.has(k.trim().toLowerCase()));
  return Object.assign(Object.create(null) as Record<string, unknown>, Object.fromEntries(rest), named);
}

/**
 * True when the step uses the named variable fields: Update then reads the design's variables
 * again when the Zap runs (the design may have changed since the Zap was set up, and a mapped
 * value may be empty) and checks what it sends before the request.
 */
export function usesNamedVariables(inputData: Record<string, unknown>): boolean {
  return Object.keys(inputData).some((k) => k.startsWith(VARIABLE_PREFIX));
}

/**
 * Update: a required variable given empty (in the dict) is refused before the call; named fields
 * left empty keep their value, so only what is sent is checked (`partial`).
 */
export async function checkUpdateVariables(client: CertificateServiceClient, batchId: string, inputData: Record<string, unknown>, data: unknown): Promise<void> {
  if (!usesNamedVariables(inputData)) return;
  const { variables } = await client.getBatchVariables(batchId);
  const given = data && typeof data === 'object' ? (data as Record<string, unknown>) : typeof data === 'string' ? safeObject(data) : undefined;
  client.check(() => checkRequiredVariables(variables, given, { partial: true }));
}

function safeObject(json: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
