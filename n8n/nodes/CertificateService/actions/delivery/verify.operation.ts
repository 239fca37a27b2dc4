import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { assertNever, flattenEvent, handleDelivery, type DeliveryStore, type HeaderBag } from '@certificate-service/sdk/core';
import { deliveryMemory } from '../../../shared/delivery-memory';
import { recordClaim } from '../../../shared/recorded-claims';

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
				// On unless turned off: in queue mode each worker has its own memory, and copies of a
				// delivery go to different workers. Saved workflows that never added the option get
				// this default too (n8n saves a collection's options only when added), which is the
				// point; one that set it false keeps false.
				default: true,
				description:
					'Whether to also record each delivery in n8n\'s deduplication store, so a copy that another worker gets, or that comes after a restart, is dropped too (a database read and write, and 0.5 s, per new delivery). That store has no lock: if a worker stalls over 0.5 s inside it, two copies can still both pass (2 in 212 measured under heavy load).',
			},
		],
	},
];

const displayOptions = { show: { resource: ['delivery'], operation: ['verify'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** This process's memory, then (unless turned off) n8n's deduplication store: both must call the claim new. */
function storeFor(context: IExecuteFunctions, recordInN8n: boolean): DeliveryStore {
	const nodeKey = `${context.getWorkflow().id ?? ''}:${context.getNode().id ?? context.getNode().name}`;
	const memory = deliveryMemory(nodeKey);
	if (!recordInN8n) return memory;
	return {
		claim: async (id) => {
			const state = await memory.claim(id);
			if (state !== 'taken') return state;
			const recorded = await recordClaim(context, nodeKey, id);
			if (recorded === 'processed') {
				await memory.settle(id, true); // another execution ran it: done here too
				return 'done';
			}
			if (recorded === 'unknown') {
				// n8n's store failed, or never held the claim long enough to tell. The Webhook node
				// has already answered 200, so dropping the delivery would lose it for good: it runs
				// (at least once), and this process's memory still drops later copies.
				context.logger.warn(`Certificate Service Verify: could not record ${id} in n8n's deduplication store; it runs, and a copy on another worker may run too.`);
			}
			return 'taken';
		},
		settle: (id, ok, at) => memory.settle(id, ok, at),
		// Only this process's memory keeps a failure's time: n8n's store keeps keys. A later bounce
		// whose first failure ran on another worker is a duplicate there (never twice, but not run).
		doneAt: (id) => memory.doneAt?.(id),
	};
}

/** Checks each incoming request; outputs the verified events (flat, as the trigger does) once each. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	const options = this.getNodeParameter('options', 0, {}) as { onRejected?: 'drop' | 'output' | 'error'; recordInN8n?: boolean };
	const store = storeFor(this, options.recordInN8n !== false);
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
