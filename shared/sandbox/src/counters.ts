// What the sandbox saw, for assertions like "the client made exactly 3 bulk calls".
// Control requests (/__sandbox) are never counted.

export interface CountersSnapshot {
  requests: { total: number; byRoute: Record<string, number> };
  /** 429s given by the rate limiter (injected 429 faults are counted under `faultsInjected`). */
  rateLimited: number;
  quotaUsed: number;
  certificatesIssued: number;
  faultsInjected: number;
  /** Public viewer page loads. */
  views: number;
  deliveries: { attempted: number; succeeded: number; failed: number; pending: number };
}

export class Counters {
  total = 0;
  byRoute = new Map<string, number>();
  rateLimited = 0;
  quotaUsed = 0;
  certificatesIssued = 0;
  faultsInjected = 0;
  views = 0;
  deliveriesAttempted = 0;
  deliveriesSucceeded = 0;
  deliveriesFailed = 0;

  request(routeKey: string): void {
    this.total++;
    this.byRoute.set(routeKey, (this.byRoute.get(routeKey) ?? 0) + 1);
  }

  reset(): void {
    this.total = 0;
    this.byRoute.clear();
    this.rateLimited = 0;
    this.quotaUsed = 0;
    this.certificatesIssued = 0;
    this.faultsInjected = 0;
    this.views = 0;
    this.deliveriesAttempted = 0;
    this.deliveriesSucceeded = 0;
    this.deliveriesFailed = 0;
  }

  /** `pending` is a gauge owned by the delivery engine, so it is passed in. */
  snapshot(pendingDeliveries: number): CountersSnapshot {
    return {
      requests: { total: this.total, byRoute: Object.fromEntries(this.byRoute) },
      rateLimited: this.rateLimited,
      quotaUsed: this.quotaUsed,
      certificatesIssued: this.certificatesIssued,
      faultsInjected: this.faultsInjected,
      views: this.views,
      deliveries: {
        attempted: this.deliveriesAttempted,
        succeeded: this.deliveriesSucceeded,
        failed: this.deliveriesFailed,
        pending: pendingDeliveries,
      },
    };
  }
}
