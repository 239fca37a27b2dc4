/**
 * Headers as hosts hand them over: a plain object (Node, n8n, Zapier), a `Map`, or a
 * WHATWG `Headers` (fetch). Values a host left as numbers or lists are accepted too.
 */
export type HeaderBag =
  | Record<string, string | string[] | undefined | null | number>
  | { entries(): IterableIterator<[string, unknown]> };

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  // Lists of strings only: a symbol, an object or a value whose toString throws is no header value.
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(',');
  return undefined;
}

/**
 * Case-insensitive header lookup, for the API's responses and for webhook deliveries alike.
 * Zapier hands hook headers over as `Http-X-Service-Signature` (prefixed and Camel-Cased),
 * so the prefix is accepted too. Never throws: an unreadable value counts as absent.
 */
export function getHeader(headers: HeaderBag | null | undefined, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  const wanted = name.toLowerCase();
  const prefixed = `http-${wanted}`;
  try {
    const pairs: Iterable<[string, unknown]> =
      typeof headers.entries === 'function' ? (headers as { entries(): IterableIterator<[string, unknown]> }).entries() : Object.entries(headers);
    for (const [key, value] of pairs) {
      if (typeof key !== 'string') continue;
      const k = key.toLowerCase();
      if (k === wanted || k === prefixed) return text(value);
    }
  } catch {
    // A getter or an iterator that throws: the header cannot be read, so it is absent.
  }
  return undefined;
}
