import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { errorJson, toNodeError } from './errors';

export type ItemResult = IDataObject | IDataObject[];

/**
 * Turns an error of input item `itemIndex` into its error item when "Continue On Fail"
 * is on, and throws it (as a NodeApiError/NodeOperationError naming the item) otherwise.
 */
export function failedItem(
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
	options: { sent?: boolean } = {},
): INodeExecutionData {
	const nodeError = toNodeError(context.getNode(), error, itemIndex, options);
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
 * every output item with its input item, and applies "Continue On Fail".
 */
export async function forEachItem(
	context: IExecuteFunctions,
	handle: (itemIndex: number) => Promise<ItemResult>,
): Promise<INodeExecutionData[]> {
	const items = context.getInputData();
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			output.push(...resultItems(await handle(itemIndex), itemIndex));
		} catch (error) {
			output.push(failedItem(context, error, itemIndex));
		}
	}
	return output;
}
