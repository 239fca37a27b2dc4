// Errors of the shared stores (redisStore, postgresStore): what the database client reported,
// without a secret. A client error may carry its connection string or password (a URL in a
// connect error, a DSN a server echoes), so the error is never passed on as a `cause`: its
// message is copied with the client's own credentials and anything shaped like one taken out.
import { redact } from './redact';

const CREDENTIAL_SHAPES: Array<[RegExp, string]> = [
  [/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1[redacted]@'], // scheme://user:password@host
  [/\b(password|passwd|pwd|pass|auth|requirepass)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&)]+)/gi, '$1$2[redacted]'],
];

/** The client's credentials, read from its options where the client keeps them, to take out of its errors. */
export function credentialsOf(client: unknown): string[] {
  const found: string[] = [];
  const visit = (options: unknown) => {
    if (!options || typeof options !== 'object') return;
    for (const name of ['password', 'url', 'connectionString', 'username', 'user']) {
      const value = (options as Record<string, unknown>)[name];
      if (typeof value === 'string' && value.length >= 4) found.push(value);
    }
  };
  const c = client as { options?: unknown; _options?: unknown; connectionParameters?: unknown };
  visit(c?.options);
  visit(c?._options);
  visit(c?.connectionParameters);
  return found;
}

/** `<store>: <what> failed: <the client's words, without a secret>`. */
export function storeError(store: string, what: string, error: unknown, secrets: readonly string[]): Error {
  const e = error as { message?: unknown; code?: unknown } | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  const code = typeof e?.code === 'string' && !message.includes(e.code) ? ` (${e.code})` : '';
  let words = redact(`${message}${code}`, secrets);
  for (const [shape, replacement] of CREDENTIAL_SHAPES) words = words.replace(shape, replacement);
  return new Error(`${store}: ${what} failed: ${words}`);
}
