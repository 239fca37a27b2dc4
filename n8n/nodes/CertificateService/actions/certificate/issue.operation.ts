import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { assertNever, outcomeReport } from '@certificate-service/sdk/core';
import type { CertificateServiceClient, DesignVariable, IssueItem, IssueOutcome } from '@certificate-service/sdk/core';
import { readItems, type ItemRun } from '../../helpers/items';
import { locatorValue, mappedVariables, readData, stringParam } from '../../helpers/params';
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
				displayName: 'Allow Unknown Variables',
				name: 'allowUnknownVariables',
				type: 'boolean',
				default: false,
				description:
					"Whether to send a variable the batch's design does not list, as given. Off: such an item fails before anything is sent, naming the design's closest variable (a typo would otherwise be printed on the certificate). Turn on only when the design's list is incomplete or the service takes that data on purpose. It applies to the whole run: an expression here is read for the first item.",
			},
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
	/** The design's variables the resource mapper saved, when it is used. */
	variables: DesignVariable[] | undefined;
}

/** One item's parameters, as given: the core's issue plan checks and normalises them. */
function readRequest(context: IExecuteFunctions, itemIndex: number): IssueRequest {
	return {
		item: {
			batchId: locatorValue(context, 'batch', itemIndex),
			name: stringParam(context, 'name', itemIndex),
			email: stringParam(context, 'email', itemIndex),
			data: readData(context, itemIndex),
			send: context.getNodeParameter('send', itemIndex, false) as boolean,
		},
		simplify: context.getNodeParameter('simplify', itemIndex, true) as boolean,
		variables: mappedVariables(context, itemIndex),
	};
}

/**
 * "Skip Emails Already Issued", "Batch Requests" and "Allow Unknown Variables" decide how the
 * whole run is sent (one read of each batch; bulk calls across items), so they are read once,
 * from the first item.
 */
function runSettings(context: IExecuteFunctions): { skipExisting: boolean; bulk: boolean; allowUnknownVariables: boolean } {
	const options = context.getNodeParameter('options', 0, {}) as { batchRequests?: boolean; allowUnknownVariables?: boolean };
	return {
		skipExisting: context.getNodeParameter('skipExisting', 0, true) as boolean,
		bulk: options.batchRequests !== false,
		allowUnknownVariables: options.allowUnknownVariables === true,
	};
}

/**
 * The mapper's variables by batch (the first item of each batch), for the core to check: they
 * count as its design check for those batches. The core reads the design of every other batch
 * (its default), once per run.
 */
function variablesByBatch(requests: IssueRequest[]): Map<string, DesignVariable[]> {
	const map = new Map<string, DesignVariable[]>();
	for (const r of requests) if (r.variables && !map.has(r.item.batchId)) map.set(r.item.batchId, r.variables);
	return map;
}

/** How far a run got, for the error that stops it. */
function summarise(outcomes: IssueOutcome[]): string {
	const counts = `${outcomeReport(outcomes).sentence} The issued ones are not undone.`;
	// An unknown outcome's own hint already says how to run again (N8N_WORDS 'issue-unknown'): said once.
	const stoppedBy = outcomes.find((o) => !o.ok && o.kind !== 'notSent' && o.kind !== 'refusedEarlier');
	if (stoppedBy?.kind === 'unknown') return counts;
	return `${counts} Running the workflow again with "Skip Emails Already Issued in This Batch" on issues only the rest.`;
}

/** One item's output: its certificate (and whether it was skipped), or its error. */
function itemRun(outcome: IssueOutcome, simplify: boolean): ItemRun {
	switch (outcome.kind) {
		case 'issued':
		case 'skipped':
			return { ok: true, result: { ...shapeRecipient(outcome.recipient, simplify), skipped: outcome.kind === 'skipped' } };
		case 'invalid':
		case 'failed':
		case 'unknown':
		case 'unreadBatch':
			return { ok: false, error: outcome.error };
		case 'notSent':
		case 'refusedEarlier':
			return { ok: false, error: outcome.error, heldBack: true };
		default:
			return assertNever(outcome);
	}
}

/**
 * Issues one certificate per input item (one quota unit each) through the core's issue plan
 * (which refuses a variable the design does not list, unless "Allow Unknown Variables"):
 * with "Batch Requests", grouped per batch into bulk calls of at most 100, in input order; with
 * "Skip Emails Already Issued", each batch is read once first and emails already there are
 * skipped. An issue call is never repeated after an unknown outcome (the API has no idempotency key).
 */
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	const { skipExisting, bulk, allowUnknownVariables } = runSettings(this);
	const run = readItems(this, (itemIndex) => readRequest(this, itemIndex));
	const stop = !run.continueOnFail;
	const outcomes = await client.issueMany(
		run.requests.map((r) => r.item),
		{ skipExisting, bulk, allowUnknownVariables, stopOnInvalid: stop, stopOnError: stop, variables: variablesByBatch(run.requests) },
	);
	return run.output(
		outcomes.map((o, k) => itemRun(o, run.requests[k].simplify)),
		{ summarise: () => summarise(outcomes) },
	);
}
