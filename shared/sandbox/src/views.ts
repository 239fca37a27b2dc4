// The public JSON of each resource. Internal fields (seq, workspaceId, secrets) never leak.
import type { BatchRecord, DesignRecord, SubscriptionRecord } from './store';

export function batchView(b: BatchRecord) {
  return { id: b.id, title: b.title, designId: b.designId, status: b.status, createdAt: b.createdAt };
}

export function designView(d: DesignRecord) {
  return { id: d.id, name: d.name, ...(d.variables ? { variables: d.variables.map((v) => ({ ...v })) } : {}) };
}

/** The secret is "shown once": only the create and rotate responses add it. */
export function subscriptionView(s: SubscriptionRecord) {
  return { id: s.id, url: s.url, events: [...s.events], createdAt: s.createdAt };
}
