import type { IDataObject } from 'n8n-workflow';

import { DeliveryDeduper, type DeliveryStore } from '@certificate-service/sdk/core';
import { deliveryMemory } from '../shared/delivery-memory';

/**
 * Claims kept in the node's static data (small: it is saved with the workflow), across restarts,
 * the last 200. A claim is the occurrence of a certificate event, the delivery id for
 * `certificate.viewed` (the core's claimKey); `deliveryIds` keeps its name in saved workflows.
 */
export const STORED_DELIVERIES = 200;

/*
 * Where a delivery id is remembered, and what each place survives (n8n 2.41.1; measured in a
 * real queue-mode n8n by test/e2e/queue, figures in its README):
 *
 * 1. This process's memory (n8n/nodes/shared/delivery-memory.ts, shared with Delivery → Verify): the id
 *    is pending from the moment webhook() takes it until n8n's answer to that attempt is known,
 *    then done (n8n answered 2xx) or free again (anything else), see whenAnswered below.
 *
 * 2. The node's static data, written only for an id that is done. n8n does NOT save static data
 *    changed in a webhook() call that starts an execution: WorkflowRunner.run
 *    (establishContextForPersistence) wraps the same static-data object in a new Workflow,
 *    which resets its changed flag, so the saveStaticData that LiveWebhooks runs afterwards
 *    writes nothing; and that save runs before n8n writes its answer (live-webhooks.js, the
 *    responseCallback), when the id is still pending. A call that starts no execution (a
 *    duplicate) is saved. So an id is stored when its first duplicate arrives, and from then on
 *    a restart does not forget it. A delivery that arrived once and comes again only after a
 *    restart starts a second execution: no dependency-free node can store its id, because
 *    IWebhookFunctions offers no store that n8n saves on that path.
 */

function storedIds(staticData: IDataObject): DeliveryDeduper {
	const stored = Array.isArray(staticData.deliveryIds)
		? (staticData.deliveryIds as unknown[]).filter((id): id is string => typeof id === 'string')
		: [];
	return new DeliveryDeduper(STORED_DELIVERIES, stored);
}

/**
 * The trigger's store for the core's delivery pipeline: an id stored in static data is done;
 * otherwise this process's memory decides, and an id it calls done (a duplicate: the call starts
 * no execution, so n8n saves it) is written to static data.
 */
export function triggerStore(nodeKey: string, staticData: IDataObject): DeliveryStore {
	const memory = deliveryMemory(nodeKey);
	return {
		async claim(deliveryId) {
			const stored = storedIds(staticData);
			if (stored.has(deliveryId)) return 'done';
			const state = await memory.claim(deliveryId);
			if (state === 'done') {
				stored.remember(deliveryId);
				staticData.deliveryIds = stored.toJSON();
			}
			return state;
		},
		settle: (deliveryId, ok, at) => memory.settle(deliveryId, ok, at),
		doneAt: (deliveryId) => memory.doneAt?.(deliveryId),
	};
}

/** The part of Node's/Express's response this needs. */
interface Answer {
	statusCode: number;
	end: (...args: never[]) => unknown;
}

/**
 * Calls `listener` once, with the status n8n answers this request with. n8n 2.41.1 writes every
 * answer of a webhook call through `res.end` (webhooks/webhook-request-handler.js: res.json /
 * res.send, and ResponseHelper.sendErrorResponse when WorkflowRunner.run threw), after
 * webhook() returned and the execution was stored and started or enqueued
 * (webhooks/webhook-helpers.js, executeWebhook). It does so even when the sender has already
 * gone (it waits 10 s): then the socket closed first and 'finish' never fires, so the status is
 * read at `end`, not on 'finish'.
 */
export function whenAnswered(res: Answer, listener: (status: number) => void): void {
	const end = res.end;
	let told = false;
	res.end = (...args: never[]) => {
		if (!told) {
			told = true;
			listener(res.statusCode);
		}
		return end.apply(res, args);
	};
}
