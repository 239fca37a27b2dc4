/**
 * Remembers the most recent delivery ids (delivery is at-least-once, spec section 6).
 * Bounded so a long-running receiver does not grow without limit.
 */
export class DeliveryDeduper {
  private readonly ids = new Map<string, true>();
  constructor(
    private readonly maxSize = 1000,
    initial: Iterable<string> = [],
  ) {
    // 0 or NaN would remember nothing (every copy of a delivery would pass), so it is refused.
    if (typeof maxSize !== 'number' || !Number.isInteger(maxSize) || maxSize < 1) {
      throw new RangeError(`DeliveryDeduper: maxSize must be a whole number of at least 1 (got ${String(maxSize)}).`);
    }
    for (const id of initial) this.remember(id);
  }

  /** True when `id` was seen before; otherwise records it and returns false. */
  seen(id: string): boolean {
    if (this.ids.has(id)) return true;
    this.remember(id);
    return false;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  remember(id: string): void {
    this.ids.delete(id);
    this.ids.set(id, true);
    while (this.ids.size > this.maxSize) this.ids.delete(this.ids.keys().next().value as string);
  }

  /** Lets `id` be accepted again: a receiver whose handler failed wants the service's retry. */
  forget(id: string): void {
    this.ids.delete(id);
  }

  /** Oldest first; small enough to keep in n8n static data. */
  toJSON(): string[] {
    return [...this.ids.keys()];
  }
}
