export type HeaderBag = Record<string, string | string[] | undefined | null | number>;

/**
 * Case-insensitive header lookup. Zapier hands hook headers over as
 * `Http-X-Service-Signature` (prefixed and Camel-Cased), so the prefix is accepted too.
 */
export function getHeader(headers: HeaderBag | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  const prefixed = `http-${wanted}`;
  for (const key in headers) {
    const k = key.toLowerCase();
    if (k !== wanted && k !== prefixed) continue;
    const value = headers[key];
    if (value === undefined || value === null) return undefined;
    return Array.isArray(value) ? value.join(',') : String(value);
  }
  return undefined;
}
