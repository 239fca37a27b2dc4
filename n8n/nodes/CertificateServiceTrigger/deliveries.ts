import type { IDataObject } from 'n8n-workflow';

import { DeliveryDeduper, type DeliveryStore } from '@certificate-service/sdk/core';

/** Delivery ids kept in the node's static data (small: it is saved with the workflow). */
export const STORED_DELIVERIES = 200;
/**
 * Delivery ids kept in memory per trigger node. Sized for floods, not for steady traffic: a
 * bulk issue of 10,000 with send makes 20,000 deliveries within seconds, and the service
 * retries each one that was answered late (after its 10 s timeout) even though this process
 * had accepted it. With 1,000, the retry of one of a flood's first deliveries could come after
 * more than 1,000 others and find its id evicted (test/n8n/trigger.test.ts; P9 in
 * test/bench/p9-floods.ts measures floods of 2,000 with this size).
 * About 100 bytes an id: 2 MB per node at most.
 */
export const MEMORY_DELIVERIES = 20_000;
/** Trigger nodes remembered in memory; the least recently used one is dropped beyond this. */
const MEMORY_NODES = 500;

/*
 * Where a delivery id is remembered, and what each place survives (n8n 2.41.1; measured in a
 * real queue-mode n8n by test/e2e/queue, figures in its README):
 *
 * 1. This process's memory (an LRU per trigger node). Check and record are one synchronous
 *    step, so copies that reach the same process, even at the same instant, start one run.
 *    n8n runs webhook() in whichever process got the request (main, or one of several
 *    `n8n webhook` processes in queue mode), so across processes this holds only when the load
 *    balancer sends every copy of a delivery to the same process: nginx
 *    `hash $http_x_service_delivery consistent;`. A restart forgets it.
 *
 * 2. The node's static data. n8n does NOT save static data changed in a webhook() call that
 *    starts an execution: WorkflowRunner.run (establishContextForPersistence) wraps the same
 *    static-data object in a new Workflow, which resets its changed flag, so the
 *    saveStaticData that LiveWebhooks runs afterwards writes nothing. A call that starts no
 *    execution (a duplicate) is saved. So an id is stored here when its first duplicate
 *    arrives, and from then on a restart does not forget it. A delivery that arrived once and
 *    comes again only after a restart starts a second execution: no dependency-free node can
 *    store its id, because IWebhookFunctions offers no store that n8n saves on that path.
 */
const recent = new Map<string, DeliveryDeduper>();

function memoryDeduper(key: string): DeliveryDeduper {
	let deduper = recent.get(key);
	if (deduper) {
		recent.delete(key); // re-insert: most recently used last
	} else {
		deduper = new DeliveryDeduper(MEMORY_DELIVERIES);
	}
	recent.set(key, deduper);
	while (recent.size > MEMORY_NODES) recent.delete(recent.keys().next().value as string);
	return deduper;
}

/**
 * True when `deliveryId` was seen before by this trigger node (in this process's memory, or
 * stored in static data by an earlier duplicate). Records it in memory; a duplicate is also
 * written to static data, which n8n saves because that call starts no execution.
 */
export function isDuplicateDelivery(
	nodeKey: string,
	staticData: IDataObject,
	deliveryId: string,
): boolean {
	const stored = Array.isArray(staticData.deliveryIds)
		? (staticData.deliveryIds as unknown[]).filter((id): id is string => typeof id === 'string')
		: [];
	const persisted = new DeliveryDeduper(STORED_DELIVERIES, stored);
	const memory = memoryDeduper(nodeKey);
	const inMemory = memory.has(deliveryId);
	const inStore = persisted.has(deliveryId);
	memory.remember(deliveryId);
	if (inMemory && !inStore) {
		persisted.remember(deliveryId);
		staticData.deliveryIds = persisted.toJSON();
	}
	return inMemory || inStore;
}

/** The trigger's store for the core's delivery pipeline: memory plus static data, as above. */
export function triggerStore(nodeKey: string, staticData: IDataObject): DeliveryStore {
	return { claim: (deliveryId) => !isDuplicateDelivery(nodeKey, staticData, deliveryId) };
}

/** For tests: forget what this process has seen. */
export function resetDeliveryMemory(): void {
	recent.clear();
}
