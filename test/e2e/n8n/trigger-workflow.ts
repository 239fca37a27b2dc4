/**
 * A workflow made of our trigger alone (every delivery it accepts is one execution), for the
 * single-mode and queue-mode suites and the P8 benchmark.
 */
import { randomUUID } from 'node:crypto';

export const TRIGGER = 'CUSTOM.certificateServiceTrigger';
export const TRIGGER_NAME = 'Certificate Service Trigger';

export interface TriggerWorkflowOptions {
  events?: string[];
  /** 2 skips n8n's per-request expression isolate; 1 is what workflows saved before 0.2 hold. */
  typeVersion?: 1 | 2;
}

export function triggerWorkflow(name: string, webhookId: string, credential: { id: string; name: string }, options: TriggerWorkflowOptions = {}) {
  const { events = ['certificate.issued'], typeVersion = 1 } = options;
  return {
    name,
    nodes: [
      {
        // n8n's own kind of ID: its workflow_publication_trigger_status.nodeId is varchar(36), so on
        // Postgres a longer one (`trigger-<uuid>`) left publishing "in_progress" with no trigger.
        id: randomUUID(),
        name: TRIGGER_NAME,
        type: TRIGGER,
        typeVersion,
        position: [0, 0],
        webhookId,
        parameters: { events, batch: { __rl: true, mode: 'list', value: '' } },
        credentials: { certificateServiceApi: credential },
      },
    ],
    connections: {},
  };
}

