import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { CertificateServiceClient, IssueItem } from '@certificate-service/sdk/core';
import { runItems, type ItemOutcome } from '../../helpers/items';
import { locatorValue, readData, stringParam } from '../../helpers/params';
import { batchLocator, dataFieldsProperties, recipientEmailField, simplifyField } from '../common.descriptions';
import { shapeRecipient } from './recipient';

const properties: INodeProperties[] = [
	batchLocator,
	{
		displayName: 'Recipient Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Ada Lovelace',
		description: 'Name printed on the certificate',
	},
	recipientEmailField('Where the certificate email goes'),
	...dataFieldsProperties({ allowKeep: false }),
	{
		displayName: 'Send Email',
		name: 'send',
		type: 'boolean',
		default: false,
		description:
			'Whether to email the certificate to the recipient at once. If off, send it later with the Send operation.',
	},
	{
		displayName: 'Skip Emails Already Issued in This Batch',
		name: 'skipExisting',
		type: 'boolean',
		default: true,
		description:
			'Whether to skip an item whose email (ignoring letter case) already has a certificate in the batch, or came earlier in this run. The batch is read once per run, 100 certificates a page. Skipped items output the existing certificate with "skipped": true, so running a failed execution again issues only what is missing. It applies to the whole run: an expression here is read for the first item.',
	},
	simplifyField,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Batch Requests',
				name: 'batchRequests',
				type: 'boolean',
				default: true,
				description:
					'Whether to issue the certificates of all input items with as few requests as possible: items are grouped per batch, in input order, into bulk calls of up to 100 each. Every output item still carries its own certificate or error. Turn off to make one request per item. It applies to the whole run: an expression here is read for the first item.',
			},
		],
	},
];

const displayOptions = { show: { resource: ['certificate'], operation: ['issue'] } };

export const description = updateDisplayOptions(displayOptions, properties);

interface IssueRequest {
	item: IssueItem;
	simplify: boolean;
}

/** One item's parameters, as given: the core validates and normalises them on the way out. */
function readRequest(context: IExecuteFunctions, itemIndex: number): IssueRequest {
	return {
		item: {
			batchId: locatorValue(context, 'batch', itemIndex),
			name: stringParam(context, 'name', itemIndex),
			email: stringParam(context, 'email', itemIndex),
			// A required design variable left empty fails this item here, before any request.
			data: readData(context, itemIndex, { issuing: true }),
			send: context.getNodeParameter('send', itemIndex, false) as boolean,
		},
		simplify: context.getNodeParameter('simplify', itemIndex, true) as boolean,
	};
}

/**
 * "Skip Emails Already Issued" and "Batch Requests" decide how the whole run is sent (one read
 * of each batch; bulk calls across items), so they are read once, from the first item.
 */
function runSettings(context: IExecuteFunctions): { skipExisting: boolean; bulk: boolean } {
	const options = context.getNodeParameter('options', 0, {}) as { batchRequests?: boolean };
	return { skipExisting: context.getNodeParameter('skipExisting', 0, true) as boolean, bulk: options.batchRequests !== false };
}

/** How far a run got, for the error that stops it. */
function summarise(outcomes: ItemOutcome[], total: number): string {
	const count = (test: (o: ItemOutcome) => boolean) => outcomes.filter(test).length;
	const skipped = count((o) => o.ok && (o.result as IDataObject).skipped === true);
	const issued = count((o) => o.ok) - skipped;
	const notSent = count((o) => !o.ok && (o.error as { code?: unknown }).code === 'NOT_SENT');
	const failed = count((o) => !o.ok) - notSent;
	return (
		`Of ${total} items, ${issued} certificates were issued, ${skipped} skipped (already issued), ${failed} failed and ${notSent} not sent; the issued ones are not undone.` +
		' Running the workflow again with "Skip Emails Already Issued in This Batch" on issues only the rest.'
	);
}

/**
 * Issues one certificate per input item (one quota unit each), through the node's batched
 * item loop. With "Batch Requests" the core groups the items per batch into bulk calls of
 * at most 100, in input order. With "Skip Emails Already Issued" it first reads each
 * batch once and skips emails already there. An issue call is never repeated after an
 * unknown outcome (the API has no idempotency key).
 */
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	const { skipExisting, bulk } = runSettings(this);
	return await runItems(
		this,
		(itemIndex) => readRequest(this, itemIndex),
		async (requests) => {
			// Without "Continue On Fail" the node stops at the first failure, as n8n's nodes do:
			// an invalid item stops it before anything is issued, and a failed call stops the
			// calls after it (their items end as NOT_SENT).
			const stop = !this.continueOnFail();
			const outcomes = await client.issueMany(
				requests.map((r) => r.item),
				{ skipExisting, bulk, stopOnInvalid: stop, stopOnError: stop },
			);
			return outcomes.map((o, k) => {
				if (!o.ok) return { ok: false, error: o.error };
				return { ok: true, result: { ...shapeRecipient(o.recipient, requests[k].simplify), skipped: o.skipped === true } };
			});
		},
		{ summarise: (outcomes) => summarise(outcomes, this.getInputData().length) },
	);
}
