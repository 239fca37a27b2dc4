import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { validateIssue } from '@certificate-service/sdk/core';
import type { CertificateServiceClient, IssueItem } from '@certificate-service/sdk/core';
import { toNodeError } from '../../helpers/errors';
import { failedItem, forEachItem, resultItems } from '../../helpers/items';
import { locatorValue, readData, stringParam } from '../../helpers/params';
import { batchLocator, dataFieldsProperties } from '../common.descriptions';

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
	{
		displayName: 'Recipient Email',
		name: 'email',
		type: 'string',
		placeholder: 'e.g. name@email.com',
		required: true,
		default: '',
		description: 'Where the certificate email goes',
	},
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
					'Whether to issue the certificates of all input items with as few requests as possible: items are grouped per batch, in input order, into bulk calls of up to 100 each. Every output item still carries its own certificate or error. Turn off to make one request per item.',
			},
		],
	},
];

const displayOptions = { show: { resource: ['certificate'], operation: ['issue'] } };

export const description = updateDisplayOptions(displayOptions, properties);

function readIssueItem(context: IExecuteFunctions, itemIndex: number): IssueItem {
	const item: IssueItem = {
		batchId: locatorValue(context, 'batch', itemIndex),
		name: stringParam(context, 'name', itemIndex),
		email: stringParam(context, 'email', itemIndex),
		data: readData(context, itemIndex),
		send: context.getNodeParameter('send', itemIndex, false) as boolean,
	};
	validateIssue(item); // so a bad item fails before any request is made
	return item;
}

/**
 * Issues one certificate per input item (one quota unit each). With "Batch Requests",
 * the core groups the items per batch into bulk calls of at most 100, in input order.
 * An issue call is never repeated after an unknown outcome (the API has no idempotency key).
 */
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', 0, {}) as { batchRequests?: boolean };
	if (options.batchRequests === false) {
		return await forEachItem(this, async (itemIndex) => {
			const { batchId, send, ...recipient } = readIssueItem(this, itemIndex);
			return (await client.issueCertificate(batchId, recipient, { send })) as IDataObject;
		});
	}

	// 1. Read and validate every item first: without "Continue On Fail" a bad item stops
	//    the node before anything is issued.
	const items = this.getInputData();
	const output: INodeExecutionData[][] = items.map(() => []);
	const toIssue: IssueItem[] = [];
	const itemIndexes: number[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			toIssue.push(readIssueItem(this, itemIndex));
			itemIndexes.push(itemIndex);
		} catch (error) {
			output[itemIndex].push(failedItem(this, error, itemIndex));
		}
	}

	// 2. Bulk calls; every item gets its own recipient or error back. Items were validated
	//    above, so every error below is the service's answer (or an unknown outcome).
	let outcomes;
	try {
		outcomes = await client.issueMany(toIssue);
	} catch (error) {
		throw toNodeError(this.getNode(), error);
	}

	const continueOnFail = this.continueOnFail();
	let firstFailure: { error: unknown; itemIndex: number } | undefined;
	outcomes.forEach((outcome, k) => {
		const itemIndex = itemIndexes[k];
		if (outcome.ok) {
			output[itemIndex].push(...resultItems(outcome.recipient as IDataObject, itemIndex));
		} else if (continueOnFail) {
			output[itemIndex].push(failedItem(this, outcome.error, itemIndex, { sent: true }));
		} else {
			firstFailure ??= { error: outcome.error, itemIndex };
		}
	});

	if (firstFailure) {
		const nodeError = toNodeError(this.getNode(), firstFailure.error, firstFailure.itemIndex, {
			sent: true,
		});
		const issued = outcomes.filter((o) => o.ok).length;
		const failed = outcomes.length - issued;
		nodeError.description = [
			nodeError.description,
			`${issued} of ${items.length} certificates were issued and ${failed} failed; the issued ones are not undone.`,
			'Turn on "Continue On Fail" in the node settings to get one output item per input item, with its certificate or its error.',
		]
			.filter(Boolean)
			.join(' ');
		throw nodeError;
	}
	return output.flat();
}
