import { randomBytes } from 'node:crypto';

/**
 * Identifier factory. The sequence survives `reset()` so certificate IDs and list
 * cursors from before a reset can never be mistaken for new ones.
 */
export class Ids {
  private seq = 0;

  /** Monotonic; also the sort key of every list (newest first = highest seq). */
  nextSeq(): number {
    return ++this.seq;
  }

  /** `<prefix><16 hex>`, e.g. `rec_3f9a...`. */
  id(prefix: string): string {
    return prefix + randomBytes(8).toString('hex');
  }

  /** Random and URL-safe: the only secret in a public viewer link. */
  shareToken(): string {
    return randomBytes(18).toString('base64url');
  }

  /** `CERT-<year>-<6 digits>-<4 digits>`: the sequence makes it unique, the tail makes it unguessable-ish. */
  certificateId(seq: number, at: Date): string {
    const tail = String(randomBytes(2).readUInt16BE(0) % 10_000).padStart(4, '0');
    return `CERT-${at.getUTCFullYear()}-${String(seq).padStart(6, '0')}-${tail}`;
  }

  /** Webhook signing secret. */
  secret(): string {
    return 'wh_sec_' + randomBytes(24).toString('base64url');
  }

  apiKey(): string {
    return 'sk_live_sandbox_' + randomBytes(16).toString('hex');
  }
}
