import { parseSecureUrl } from './base-url';
import { validationError } from './errors';
import { EVENT_TYPES, type BatchStatusFilter, type EventType, type IssueInput, type RecipientUpdate } from './types';

// Rules checked before any request is sent, so bad input never spends quota or rate limit.

export const MAX_BULK = 100;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The API key as sent: trimmed (a key pasted with a space or a newline is the same key), or
 * undefined when there is none. Each host normalises the key with it once, where it enters (the
 * n8n credential, Zapier's authData, the environment); redaction still covers the raw form too.
 */
export function apiKeyFrom(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

export function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value.trim()) throw validationError(field, 'is required and must be a non-empty string');
  return value.trim();
}

/** An options or input object: anything else (a missing argument) is a VALIDATION_ERROR naming it. */
export function requireObject(value: unknown, field: string): void {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw validationError(field, 'must be an object');
}

export function requireEmail(value: unknown, field = 'email'): string {
  const email = requireString(value, field);
  if (!EMAIL.test(email)) throw validationError(field, `"${email}" is not a valid email address`);
  return email;
}

/**
 * Certificate variables are strings; numbers and booleans are converted, anything else is refused.
 * The result has no prototype, so a variable named `__proto__` or `constructor` is plain data.
 */
export function normaliseData(value: unknown, field = 'data'): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  if (value === undefined || value === null || value === '') return out;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw validationError(field, 'must be an object of field names to values, or its JSON text');
    }
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw validationError(field, 'must be an object of field names to values');
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (!key.trim()) throw validationError(field, 'has an empty field name');
    if (typeof v === 'string') out[key] = v;
    else if (typeof v === 'number' && Number.isFinite(v)) out[key] = String(v);
    else if (typeof v === 'boolean') out[key] = String(v);
    else if (v === null || v === undefined) out[key] = '';
    else throw validationError(`${field}.${key}`, 'must be a string, number or boolean, not an object or array');
  }
  return out;
}

export function validateIssue(input: IssueInput, prefix = ''): { name: string; email: string; data: Record<string, string> } {
  if (!input || typeof input !== 'object') throw validationError(prefix || 'recipient', 'must be an object with name and email');
  return {
    name: requireString(input.name, `${prefix}name`),
    email: requireEmail(input.email, `${prefix}email`),
    data: normaliseData(input.data, `${prefix}data`),
  };
}

export function validateUpdate(update: RecipientUpdate): Record<string, unknown> {
  requireObject(update, 'update');
  const body: Record<string, unknown> = {};
  if (update.name !== undefined) body.name = requireString(update.name, 'name');
  if (update.email !== undefined) body.email = requireEmail(update.email, 'email');
  if (update.data !== undefined) body.data = normaliseData(update.data, 'data');
  if (Object.keys(body).length === 0) throw validationError('update', 'give at least one of name, email or data to change');
  return body;
}

export function validateLimit(value: unknown, field = 'limit'): number {
  const n = typeof value === 'string' && value.trim() ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 100) throw validationError(field, 'must be a whole number from 1 to 100');
  return n;
}

export function validateStatus(value: unknown): BatchStatusFilter {
  if (value === 'active' || value === 'archived' || value === 'all') return value;
  throw validationError('status', `must be one of active, archived or all (got ${JSON.stringify(value)})`);
}

export function validateEvents(value: unknown): EventType[] {
  if (!Array.isArray(value) || value.length === 0) throw validationError('events', `must list at least one of ${EVENT_TYPES.join(', ')}`);
  for (const e of value) {
    if (!(EVENT_TYPES as readonly unknown[]).includes(e)) throw validationError('events', `"${String(e)}" is not an event type; use ${EVENT_TYPES.join(', ')}`);
  }
  return [...new Set(value as EventType[])];
}

/** Subscription URLs must be HTTPS in production (spec section 6); loopback is allowed for local testing. */
export function validateWebhookUrl(value: unknown): string {
  const raw = requireString(value, 'url');
  parseSecureUrl(raw, 'url');
  return raw;
}

export function validateBulkSize(count: number): void {
  if (count < 1) throw validationError('recipients', 'give at least one recipient');
  if (count > MAX_BULK) throw validationError('recipients', `at most ${MAX_BULK} recipients per bulk call (got ${count})`);
}

/**
 * A share token as typed, or taken from a certificate URL (`certUrl`, spec section 2:
 * `{viewer_base}/v/<shareToken>`). Anything else is refused, naming the field. Both
 * connectors let users paste either, so the rule lives here once.
 */
export function shareTokenFrom(value: unknown, field = 'shareToken'): string {
  const input = requireString(typeof value === 'number' ? String(value) : value, field);
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) {
    if (input.includes('/')) throw validationError(field, `"${input}" is neither a share token nor a certificate URL`);
    return input;
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw validationError(field, `"${input}" is not a valid URL`);
  }
  const match = /\/v\/([^/]+)\/?$/.exec(url.pathname);
  if (!match) throw validationError(field, 'a certificate URL ends in /v/<share token>');
  return decodeURIComponent(match[1]);
}
