// The seeded world: one demo workspace with a fixed, documented key, and the same three
// read-only designs in every workspace.
import type { Ids } from './ids';
import type { Store, WorkspaceRecord } from './store';

export const DEMO_WORKSPACE = { workspaceId: 'ws_demo', username: 'Demo Workspace' } as const;

/**
 * Fixed so docs, demos and CI can hard-code it. It is not a real key and its `sandbox_`
 * segment keeps it out of the usual `sk_live_<alnum>` secret-scanner patterns.
 */
export const DEMO_API_KEY = 'sk_live_sandbox_demo_key_0001';

export const DESIGNS = [
  { id: 'design_classic', name: 'Classic' },
  { id: 'design_modern', name: 'Modern' },
  { id: 'design_minimal', name: 'Minimal' },
] as const;

export function createWorkspaceRecord(ids: Ids, id: string, username: string, quota: number): WorkspaceRecord {
  return {
    id,
    username,
    quota,
    used: 0,
    designs: DESIGNS.map((d) => ({ ...d, seq: ids.nextSeq() })),
    batches: [],
    subscriptions: [],
  };
}

export function seedDemo(store: Store, ids: Ids, quota: number): void {
  const ws = createWorkspaceRecord(ids, DEMO_WORKSPACE.workspaceId, DEMO_WORKSPACE.username, quota);
  store.workspaces.set(ws.id, ws);
  store.apiKeys.set(DEMO_API_KEY, {
    key: DEMO_API_KEY,
    workspaceId: ws.id,
    createdAt: new Date().toISOString(),
    expiresAt: null,
  });
}
