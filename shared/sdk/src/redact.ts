// Redaction: what must never leave the core (the API key as given and trimmed, the host's
// secrets, every signing secret seen, and anything shaped like a bearer token or a signing
// secret), taken out of texts and of parsed values, keys included. Used where answers are read
// (request.ts), where errors are made (errors.ts) and at the client's exit (client/index.ts).
// A server may echo anything back (a header, an HTML error page, the key in a message),
// and a user may paste the key into any field. So every error is cleaned where it is
// made: the secrets the client knows, plus the shapes secrets always have.
const SECRET_SHAPES: Array<[RegExp, string]> = [
  [/\bBearer\s+[A-Za-z0-9._~+/=-]+/gi, 'Bearer [redacted]'],
  [/wh_sec_[A-Za-z0-9_-]+/g, '[redacted]'],
];

/**
 * The strings that must never leave the client: the API key as configured and trimmed (a host
 * may send either), the host's own secrets, and every signing secret the client has seen.
 */
export class SecretSet {
  readonly #items: string[] = [];

  constructor(values: ReadonlyArray<string | undefined> = []) {
    for (const v of values) this.add(v);
  }

  add(value: string | undefined): void {
    if (typeof value !== 'string') return;
    for (const v of [value, value.trim()]) if (v.length > 0 && !this.#items.includes(v)) this.#items.push(v);
  }

  list(): string[] {
    return [...this.#items];
  }
}

/** `text` without the given secrets and, unless `shapes` is false, without anything shaped like one. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined> = [], shapes = true): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  if (shapes) for (const [shape, replacement] of SECRET_SHAPES) out = out.replace(shape, replacement);
  return out;
}

export function redactValue(value: unknown, secrets: ReadonlyArray<string | undefined>, depth = 0, maxDepth = 6, shapes = true): unknown {
  if (typeof value === 'string') return redact(value, secrets, shapes);
  if (value === null || typeof value !== 'object') return value;
  if (depth > maxDepth) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets, depth + 1, maxDepth, shapes));
  const out: Record<string, unknown> = {};
  // defineProperty, not `out[k] =`: a key `__proto__` (JSON.parse makes it an own key) stays data
  // instead of replacing the copy's prototype and vanishing.
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, redact(k, secrets, shapes), { value: redactValue(v, secrets, depth + 1, maxDepth, shapes), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A parsed answer without the secrets a server may echo, before anything reads it, so no
 * output carries them either. The answers that hand out a signing secret (create and rotate)
 * keep `wh_sec_…` values: that secret is theirs to return, once.
 */
export function redactAnswer(body: unknown, secrets: ReadonlyArray<string | undefined>, handsOutSecret: boolean): unknown {
  return redactValue(body, secrets, 0, 32, !handsOutSecret);
}
