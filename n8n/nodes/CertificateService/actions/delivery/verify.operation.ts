import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { assertNever, flattenEvent, handleDelivery, type DeliveryStore, type HeaderBag } from '@certificate-service/sdk/core';
import { deliveryMemory, MEMORY_DELIVERIES } from '../../../shared/delivery-memory';

/*
 * The high-volume receive path: a Webhook node (POST, Raw Body on, respond immediately) in
 * front of this operation. n8n's own Webhook node is the only start node that skips the
 * expression isolate in the webhook phase (n8n 2.41.1, webhooks/live-webhooks.js,
 * webhookPhaseNeedsIsolate), so the request is answered at its speed, and the check below
 * runs inside the execution: the core's one delivery pipeline (signature over the raw bytes,
 * 300 s window, then the delivery id).
 */

const properties: INodeProperties[] = [
	{
		displayName: 'Signing Secret',
		name: 'signingSecret',
		type: 'string',
		typeOptions: { password: true },
		required: true,
		default: '',
		description:
			'The subscription\'s signing secret (wh_sec_…), shown once when the subscription was created, for example with the certsvc command line: subscriptions create, giving this Webhook node\'s production URL',
	},
	{
		displayName: 'Raw Body Property',
		name: 'rawBodyProperty',
		type: 'string',
		required: true,
		default: 'data',
		description:
			'The binary property that holds the request body exactly as received. Turn on Raw Body in the Webhook node\'s options: it puts the body in "data".',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Rejected Deliveries',
				name: 'onRejected',
				type: 'options',
				default: 'drop',
				description: 'What becomes of a request whose signature does not check out (or is older than 5 minutes)',
				options: [
					{ name: 'Drop', value: 'drop', description: 'Output nothing for it' },
					{ name: 'Output With the Reason', value: 'output', description: 'Output {verified: false, reason, message}' },
					{ name: 'Fail the Execution', value: 'error', description: 'Stop with an error naming the reason' },
				],
			},
			{
				displayName: 'Record Delivery IDs',
				name: 'recordInN8n',
				type: 'boolean',
				default: false,
				description:
					'Whether to also record each delivery ID in n8n\'s deduplication store, so a copy that reaches another process or comes after a restart is dropped too. n8n reads and then writes that store without a lock: two copies handled at the same instant by two workers can both pass.',
			},
		],
	},
];

const displayOptions = { show: { resource: ['delivery'], operation: ['verify'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** This process's memory, then (when asked) n8n's deduplication store: both must call the id new. */
function storeFor(context: IExecuteFunctions, recordInN8n: boolean): DeliveryStore {
	const memory = deliveryMemory(`${context.getWorkflow().id ?? ''}:${context.getNode().id ?? context.getNode().name}`);
	if (!recordInN8n) return memory;
	return {
		claim: async (id) => {
			const state = await memory.claim(id);
			if (state !== 'taken') return state;
			try {
				const { new: fresh } = await context.helpers.checkProcessedAndRecord([id], 'node', { mode: 'entries', maxEntries: MEMORY_DELIVERIES });
				if (fresh.length === 1) return 'taken';
				await memory.settle(id, true); // another process ran it: done here too
				return 'done';
			} catch {
				// n8n 2.41.1 inserts the store's first row, then rewrites it, with no lock
				// (deduplication/deduplication-helper.js, handleHashedItems): two workers writing at
				// once fail one of them on the unique key. The Webhook node has already answered 200,
				// so failing here would lose the delivery for good (measured by P9 in queue mode).
				// Taking it keeps at-least-once: at worst one duplicate, this process's memory still
				// drops later copies.
				return 'taken';
			}
		},
		settle: (id, ok, at) => memory.settle(id, ok, at),
		// Only this process's memory keeps a failure's time: n8n's store keeps ids. A later bounce
		// whose first failure ran in another process is a duplicate (never twice).
		doneAt: (id) => memory.doneAt?.(id),
	};
}

/** Checks each incoming request; outputs the verified events (flat, as the trigger does) once each. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	const options = this.getNodeParameter('options', 0, {}) as { onRejected?: 'drop' | 'output' | 'error'; recordInN8n?: boolean };
	const store = storeFor(this, options.recordInN8n === true);
	const out: INodeExecutionData[] = [];
	const notCertificate: string[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const item = items[itemIndex];
		const property = this.getNodeParameter('rawBodyProperty', itemIndex, 'data') as string;
		const rawBody = item.binary?.[property] ? await this.helpers.getBinaryDataBuffer(itemIndex, property) : undefined;
		const headers = (item.json.headers ?? {}) as HeaderBag;
		const secret = this.getNodeParameter('signingSecret', itemIndex, '') as string;
		const result = await handleDelivery(rawBody, headers, { secrets: secret, store });
		switch (result.outcome) {
			case 'accepted':
				// n8n's Webhook node has already answered 200 (Respond: Immediately), so the service
				// will not retry: the id is done as soon as the event is output.
				await result.settle(true);
				out.push({ json: { ...(flattenEvent(result.event) as unknown as IDataObject), deliveryId: result.deliveryId }, pairedItem: { item: itemIndex } });
				break;
			case 'rejected': {
				const why = rawBody === undefined ? `no binary property "${property}": turn on Raw Body in the Webhook node` : result.message;
				if (options.onRejected === 'error') throw new NodeOperationError(this.getNode(), `Delivery rejected (${result.reason}): ${why}`, { itemIndex });
				if (options.onRejected === 'output') out.push({ json: { verified: false, reason: result.reason, message: why }, pairedItem: { item: itemIndex } });
				break;
			}
			case 'notCertificate':
				// Genuine, but no certificate event (the test delivery may be one): never output as one.
				notCertificate.push(`${result.deliveryId} (${result.envelope.type}: ${result.why})`);
				break;
			// A duplicate was handled before; a pending one is being handled by another item or
			// execution right now (the service delivers at least once). Neither is output again.
			case 'duplicate':
			case 'pending':
			case 'filtered':
				break;
			default:
				assertNever(result);
		}
	}
	if (notCertificate.length) {
		const message = `${notCertificate.length} signed ${notCertificate.length === 1 ? 'delivery is' : 'deliveries are'} not a certificate event and ${notCertificate.length === 1 ? 'was' : 'were'} not output (the service's test delivery may look like this): ${notCertificate.slice(0, 5).join('; ')}`;
		this.logger.warn(`Certificate Service Verify: ${message}`);
		this.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
	}
	return out;
}
