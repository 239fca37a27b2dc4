// The one loopback rule, and the one check a local HTTP server runs on every request (the MCP
// server's --http, the sandbox): any web page in the user's browser can send requests to
// 127.0.0.1, so a local server must tell its own clients from a page on another site.
// - DNS rebinding: a page on evil.example re-points its name at 127.0.0.1; its requests then
//   carry `Host: evil.example:<port>`. Only the names the server listens under are answered.
// - Cross-origin requests: a browser sends `Origin` with every request that can change state
//   (every POST, PUT, DELETE, form or fetch); it must be the server's own origin. Modern browsers
//   also say where a request comes from in `Sec-Fetch-Site`: another site is refused, except a
//   top-level GET navigation (a link the user follows, which reads and changes nothing here).
// - No Origin and no Sec-Fetch-Site: not a cross-origin browser request (curl, an SDK, n8n,
//   Zapier, a test's client), answered.
// Pure: header values in, a refusal or undefined out (hosts write the answer).

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** 127.x.x.x, localhost and ::1 (with or without brackets), in any case. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** An address that listens on every interface: no client names it in a Host header. */
export function isWildcardHost(host: string): boolean {
  return ['', '0.0.0.0', '::', '[::]'].includes(host);
}

/**
 * The `Host` header values that name a server listening on `host`:`port`: the loopback names,
 * `host` itself (unless it is a wildcard) and any `extra` names, each with the port (and without
 * it on port 80, where a client leaves it out), lower-cased.
 */
export function serverHostNames(host: string, port: number, extra: readonly string[] = []): string[] {
  const names = [...LOOPBACK_NAMES, ...(isWildcardHost(host) ? [] : [host]), ...extra].map((n) => (n.includes(':') && !n.startsWith('[') ? `[${n}]` : n).toLowerCase());
  const withPort = names.flatMap((n) => (port === 80 ? [`${n}:80`, n] : [`${n}:${port}`]));
  return [...new Set(withPort)];
}

/** A request's headers as Node hands them over (lower-case names). */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface ForeignRequest {
  /** The header that gave it away. */
  header: 'Host' | 'Origin' | 'Sec-Fetch-Site';
  /** Its value as sent ('' when absent). */
  value: string;
  message: string;
}

/**
 * Why a request does not come from this server's own clients (see the top of this file), or
 * undefined when it does. `allowed`: serverHostNames(...).
 */
export function foreignRequest(method: string, headers: RequestHeaders, allowed: readonly string[]): ForeignRequest | undefined {
  const one = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v.join(', ') : v; // a repeated header matches no allowed value
  };
  const host = (one('host') ?? '').toLowerCase();
  if (!allowed.includes(host)) return { header: 'Host', value: host, message: `Host "${host}" is not this server (allowed: ${allowed.join(', ')}).` };
  const origin = one('origin');
  if (origin !== undefined) {
    let originHost = '';
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      // not a URL ("null" from a sandboxed frame or a privacy setting): refused below
    }
    if (!allowed.includes(originHost)) return { header: 'Origin', value: origin, message: `Origin "${origin}" is not allowed: only this server's own origin may call it from a browser.` };
  }
  const site = one('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') {
    const navigation = one('sec-fetch-mode') === 'navigate' && (method === 'GET' || method === 'HEAD');
    if (!navigation) return { header: 'Sec-Fetch-Site', value: site, message: `A request from another site (Sec-Fetch-Site: ${site}) is not allowed: only this server's own pages may call it from a browser.` };
  }
  return undefined;
}
