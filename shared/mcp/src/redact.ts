// The MCP server's last line of defence: every tool result, error, progress message and log
// line passes through here on its way out. The core already redacts at its own exit (the key,
// signing secrets, anything shaped like one); this repeats it for what the server adds itself
// (the HTTP bearer token) and for anything a future tool might pass through unread.

const SHAPES: Array<[RegExp, string]> = [
  [/\bBearer\s+[A-Za-z0-9._~+/=-]+/gi, 'Bearer [redacted]'],
  [/wh_sec_[A-Za-z0-9_-]+/g, '[redacted]'],
];

export class Redactor {
  readonly #secrets: string[] = [];

  constructor(secrets: ReadonlyArray<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  add(secret: string | undefined): void {
    if (typeof secret !== 'string') return;
    for (const v of [secret, secret.trim()]) if (v.length >= 4 && !this.#secrets.includes(v)) this.#secrets.push(v);
  }

  text(value: string): string {
    let out = value;
    for (const s of this.#secrets) out = out.split(s).join('[redacted]');
    for (const [shape, replacement] of SHAPES) out = out.replace(shape, replacement);
    return out;
  }

  /** A JSON value with every string (keys included) redacted. */
  value<T>(value: T): T {
    return JSON.parse(this.text(JSON.stringify(value) ?? 'null')) as T;
  }
}
