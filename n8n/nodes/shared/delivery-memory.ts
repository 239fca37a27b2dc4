import { memoryStore, type DeliveryStore } from '@certificate-service/sdk/core';

/**
 * Claims kept in this process's memory per node, for the Certificate Service Trigger and for
 * Delivery → Verify alike: a certificate event's occurrence (`rec_…`, `rec_…:sent:<ms>`,
 * `rec_…:failed[:<ms>]`), the delivery id for `certificate.viewed` (the core's claimKey), so a
 * delivery and a recovered copy of it (certsvc events recover) run once. Kept until the process
 * restarts, the last 20,000 per node. Sized for floods, not for steady traffic: a bulk issue of 10,000
 * with send makes 20,000 deliveries within seconds, and the service retries each one that was
 * answered late (after its 10 s timeout) even though this process had handled it. With 1,000,
 * the retry of one of a flood's first deliveries could come after more than 1,000 others and
 * find its id evicted (test/n8n/trigger.test.ts; P9 in test/bench/p9-floods.ts measures floods
 * of 2,000 with this size). About 100 bytes an id: 2 MB per node at most.
 */
export const MEMORY_DELIVERIES = 20_000;
/** Nodes remembered; the least recently used one is dropped beyond this. */
const MEMORY_NODES = 500;

const nodes = new Map<string, DeliveryStore>();

/**
 * The core's memory store of one node (`workflowId:nodeId`) in this process: each id pending
 * from its claim until settled, then done (or free again). Check and record are one
 * synchronous step, so copies that reach the same process, even at the same instant, are told
 * apart. n8n runs a webhook in whichever process got the request (main, or one of several
 * `n8n webhook` processes in queue mode), so across processes this holds only when the load
 * balancer sends every copy of a delivery to the same process: nginx
 * `hash $http_x_service_delivery consistent;`. A restart forgets it.
 */
export function deliveryMemory(nodeKey: string): DeliveryStore {
	let store = nodes.get(nodeKey);
	if (store) nodes.delete(nodeKey); // re-inserted below: most recently used last
	else store = memoryStore(MEMORY_DELIVERIES);
	nodes.set(nodeKey, store);
	while (nodes.size > MEMORY_NODES) nodes.delete(nodes.keys().next().value as string);
	return store;
}

/** For tests: forget what this process has seen. */
export function resetDeliveryMemory(): void {
	nodes.clear();
}
