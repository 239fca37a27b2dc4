/**
 * Every background timer of the sandbox (mail, webhook deliveries and retries).
 * Unref'd so they never keep a process alive, and tracked so close()/reset() can cancel them.
 */
export class Timers {
  private readonly handles = new Set<NodeJS.Timeout>();

  set(fn: () => void, ms: number): void {
    const handle = setTimeout(() => {
      this.handles.delete(handle);
      fn();
    }, Math.max(0, ms));
    handle.unref();
    this.handles.add(handle);
  }

  clearAll(): void {
    for (const handle of this.handles) clearTimeout(handle);
    this.handles.clear();
  }

  get size(): number {
    return this.handles.size;
  }
}
