// Input checks. Each throws VALIDATION_ERROR naming the offending field (detail.field),
// with a message that says what to send instead.
import { validationError } from './errors';

export type JsonObject = Record<string, unknown>;

/** An absent body counts as `{}`, so the error names the first missing field instead. */
export function objectBody(body: unknown): JsonObject {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError('body', 'The request body must be a JSON object.');
  }
  return body as JsonObject;
}

export function requiredString(obj: JsonObject, key: string, field = key): string {
  const value = obj[key];
  if (value === undefined || value === null) throw validationError(field, `${field} is required.`);
  if (typeof value !== 'string') throw validationError(field, `${field} must be a string.`);
  if (value.trim() === '') throw validationError(field, `${field} must not be empty.`);
  return value;
}

export function optionalString(obj: JsonObject, key: string, field = key): string | undefined {
  return obj[key] === undefined ? undefined : requiredString(obj, key, field);
}

export function optionalBoolean(obj: JsonObject, key: string, field = key): boolean | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw validationError(field, `${field} must be true or false.`);
  return value;
}

// Deliberately simple: one @, no spaces, a dot in the domain. The sandbox is not an MTA.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function requiredEmail(obj: JsonObject, key: string, field = key): string {
  const value = requiredString(obj, key, field);
  if (!EMAIL.test(value)) throw validationError(field, `${field} must be a valid email address; got "${value}".`);
  return value;
}

/**
 * Certificate variables: an object of string values. With `allowNull`, a null value means
 * "remove this key" (PATCH merge semantics).
 */
export function dataObject(value: unknown, field: string, allowNull = false): Record<string, string | null> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationError(field, `${field} must be an object of string values.`);
  }
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(value as JsonObject)) {
    if (k === '') throw validationError(field, `${field} must not contain an empty key.`);
    if (typeof v === 'string' || (allowNull && v === null)) out[k] = v;
    else {
      const hint = allowNull ? 'a string (or null to remove it)' : 'a string';
      throw validationError(`${field}.${k}`, `${field}.${k} must be ${hint}; got ${describe(v)}.`);
    }
  }
  return out;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}
