import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { CertificateServiceClient } from '@certificate-service/sdk/core';

import { errorJson, toNodeError } from './errors';

export type ItemResult = IDataObject | IDataObject[];

/** What a batched run returns for each item it was given, in order. */
export type ItemOutcome = { ok: true; result: ItemResult } | { ok: false; error: unknown };

/**
 * Turns an error of input item `itemIndex` into its error item when "Continue On Fail"
 * is on, and throws it (as a NodeApiError/NodeOperationError naming the item) otherwise.
 */
export function failedItem(context: IExecuteFunctions, error: unknown, itemIndex: number): INodeExecutionData {
	const nodeError = toNodeError(context.getNode(), error, itemIndex);
	if (!context.continueOnFail()) throw nodeError;
	return { json: errorJson(nodeError, error), pairedItem: { item: itemIndex } };
}

/** Wraps one result (or a list of them) of input item `itemIndex` as output items. */
export function resultItems(result: ItemResult, itemIndex: number): INodeExecutionData[] {
	const list = Array.isArray(result) ? result : [result];
	return list.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}

/**
 * The one per-item loop of the node: runs `handle` for each input item in order, pairs
 * every output item with its input item, and applies "Continue On Fail". It is the
 * batched loop below with one request per item, stopping at the first failure.
 */
export async function forEachItem(
	context: IExecuteFunctions,
	handle: (itemIndex: number) => Promise<ItemResult>,
): Promise<INodeExecutionData[]> {
	return await forEachItemBatched(
		context,
		(itemIndex) => itemIndex,
		async (itemIndexes) => {
			const outcomes: ItemOutcome[] = [];
			for (const itemIndex of itemIndexes) {
				try {
					outcomes.push({ ok: true, result: await handle(itemIndex) });
				} catch (error) {
					outcomes.push({ ok: false, error });
					if (!context.continueOnFail()) break; // the node stops at the first failed item
				}
			}
			return outcomes;
		},
	);
}

/**
 * An operation's `execute` for operations that handle each input item on its own:
 * `handle` runs once per item, through forEachItem.
 */
export function perItem(
	handle: (context: IExecuteFunctions, client: CertificateServiceClient, itemIndex: number) => Promise<ItemResult>,
) {
	return async function execute(
		this: IExecuteFunctions,
		client: CertificateServiceClient,
	): Promise<INodeExecutionData[]> {
		return await forEachItem(this, async (itemIndex) => await handle(this, client, itemIndex));
	};
}

/**
 * The same loop for operations that send many items at once (Issue's bulk calls):
 * 1. `read` turns each input item into a request, in order; an error there fails that
 *    item alone (or stops the node before anything is sent, without "Continue On Fail");
 * 2. `run` sends all requests together and returns one outcome per request, in order;
 *    an error it throws that names `detail.index` is reported on that item.
 * Output items are paired with their input items; "Continue On Fail" as in forEachItem.
 * Without it, a failed item stops the node, and the message says how many went through.
 */
export async function forEachItemBatched<T>(
	context: IExecuteFunctions,
	read: (itemIndex: number) => T,
	run: (requests: T[]) => Promise<ItemOutcome[]>,
	options: { summarise?: (outcomes: ItemOutcome[]) => string } = {},
): Promise<INodeExecutionData[]> {
	const items = context.getInputData();
	const output: INodeExecutionData[][] = items.map(() => []);
	const requests: T[] = [];
	const itemIndexes: number[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			requests.push(read(itemIndex));
			itemIndexes.push(itemIndex);
		} catch (error) {
			output[itemIndex].push(failedItem(context, error, itemIndex));
		}
	}

	let outcomes: ItemOutcome[];
	try {
		outcomes = await run(requests);
	} catch (thrown) {
		const index = (thrown as { detail?: { index?: unknown } })?.detail?.index;
		throw toNodeError(context.getNode(), thrown, typeof index === 'number' ? itemIndexes[index] : undefined);
	}

	let firstFailure: { error: unknown; itemIndex: number } | undefined;
	outcomes.forEach((outcome, k) => {
		const itemIndex = itemIndexes[k];
		if (outcome.ok) output[itemIndex].push(...resultItems(outcome.result, itemIndex));
		else if (context.continueOnFail()) output[itemIndex].push(failedItem(context, outcome.error, itemIndex));
		else firstFailure ??= { error: outcome.error, itemIndex };
	});
	if (firstFailure) {
		const nodeError = toNodeError(context.getNode(), firstFailure.error, firstFailure.itemIndex);
		if (options.summarise) {
			nodeError.description = [
				nodeError.description,
				options.summarise(outcomes),
				'Turn on "Continue On Fail" in the node settings to get one output item per input item, with its result or its error.',
			]
				.filter(Boolean)
				.join(' ');
		}
		throw nodeError;
	}
	return output.flat();
}
