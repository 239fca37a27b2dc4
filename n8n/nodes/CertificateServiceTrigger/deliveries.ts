import type { IDataObject } from 'n8n-workflow';

import { DeliveryDeduper } from '@certificate-service/sdk/core';

/** Delivery ids kept in the node's static data (small: it is saved with the workflow). */
export const STORED_DELIVERIES = 200;
/** Delivery ids kept in memory per trigger node. */
const MEMORY_DELIVERIES = 1000;
/** Trigger nodes remembered in memory; the least recently used one is dropped beyond this. */
const MEMORY_NODES = 500;

/**
 * Static data changed in webhook() is saved only when the run it starts ends, and each
 * request reads the workflow afresh, so a duplicate that arrives milliseconds after the
 * original still sees the old static data. This process-level map closes that gap; the
 * static data covers restarts.
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
 * True when `deliveryId` was seen before by this trigger node (in this process, or in a
 * run whose static data was saved). Otherwise records it in both places.
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
	const seen = memory.has(deliveryId) || persisted.has(deliveryId);
	memory.remember(deliveryId);
	persisted.remember(deliveryId);
	staticData.deliveryIds = persisted.toJSON();
	return seen;
}

/** For tests: forget what this process has seen. */
export function resetDeliveryMemory(): void {
	recent.clear();
}
