// The seeded world: one demo workspace with a fixed, documented key, and the same three
// read-only designs in every workspace.
import type { Ids } from './ids';
import type { DesignVariableRecord, Store, WorkspaceRecord } from './store';

export const DEMO_WORKSPACE = { workspaceId: 'ws_demo', username: 'Demo Workspace' } as const;

/**
 * Fixed so docs, demos and CI can hard-code it. It is not a real key and its `sandbox_`
 * segment keeps it out of the usual `sk_live_<alnum>` secret-scanner patterns.
 */
export const DEMO_API_KEY = 'sk_live_sandbox_demo_key_0001';

/**
 * The spec shows no design fields. Our choice: a design lists its certificate variables as
 * `variables: [{ name, label, required }]` (one of the shapes the core reads). Classic has
 * two optional ones, Minimal a required `course`, Modern none (the connectors then learn
 * names from the batch's certificates). Issuing without a required one is a 400.
 */
export const DESIGNS: ReadonlyArray<{ id: string; name: string; variables?: DesignVariableRecord[] }> = [
  {
    id: 'design_classic',
    name: 'Classic',
    variables: [
      { name: 'course', label: 'Course', required: false },
      { name: 'score', label: 'Score', required: false },
    ],
  },
  { id: 'design_modern', name: 'Modern' },
  {
    id: 'design_minimal',
    name: 'Minimal',
    variables: [
      { name: 'course', label: 'Course', required: true },
      { name: 'completedOn', label: 'Completed On', required: false },
    ],
  },
];

export function createWorkspaceRecord(ids: Ids, id: string, username: string, quota: number): WorkspaceRecord {
  return {
    id,
    username,
    quota,
    used: 0,
    designs: DESIGNS.map((d) => ({ ...d, ...(d.variables ? { variables: d.variables.map((v) => ({ ...v })) } : {}), seq: ids.nextSeq() })),
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
