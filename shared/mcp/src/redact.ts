// The MCP server's last line of defence: every tool result, error, progress message and log
// line passes through here on its way out. The core already redacts at its own exit (the key,
// signing secrets, anything shaped like one); this repeats it for what the server adds itself
// (the HTTP bearer token) and for anything a future tool might pass through unread.

import { redact, SecretSet } from '@certificate-service/sdk';

/** The core's redaction (its secrets, and anything shaped like a bearer token or a signing secret) for the server's own output. */
export class Redactor {
  readonly #secrets: SecretSet;

  constructor(secrets: ReadonlyArray<string | undefined> = []) {
    this.#secrets = new SecretSet(secrets);
  }

  add(secret: string | undefined): void {
    this.#secrets.add(secret);
  }

  text(value: string): string {
    return redact(value, this.#secrets.list());
  }

  /** A JSON value with every string (keys included) redacted. */
  value<T>(value: T): T {
    return JSON.parse(this.text(JSON.stringify(value) ?? 'null')) as T;
  }
}
