import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { CertificateServiceClient } from '@certificate-service/sdk/core';

import { errorJson, toNodeError } from '../../shared/errors';

export type ItemResult = IDataObject | IDataObject[];

/** What a run returns for each item it was given, in order: its output, or its error. */
export type ItemRun =
	| { ok: true; result: ItemResult }
	/** `heldBack`: not tried because of another item's failure; the node reports that one instead. */
	| { ok: false; error: unknown; heldBack?: boolean };

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

/** An operation's `execute`: the router calls it with the client, once per run. */
export type OperationExecute = (this: IExecuteFunctions, client: CertificateServiceClient) => Promise<INodeExecutionData[]>;

/**
 * An operation's `execute` for operations that handle each input item on its own: `handle`
 * runs once per item, in order (one request at a time), and the run stops at the first failure
 * unless "Continue On Fail" is on.
 */
export function perItem(
	handle: (context: IExecuteFunctions, client: CertificateServiceClient, itemIndex: number) => Promise<ItemResult>,
): OperationExecute {
	return async function execute(this: IExecuteFunctions, client: CertificateServiceClient) {
		const run = readItems(this, (itemIndex) => itemIndex);
		const outcomes: ItemRun[] = [];
		for (const itemIndex of run.requests) {
			try {
				outcomes.push({ ok: true, result: await handle(this, client, itemIndex) });
			} catch (error) {
				outcomes.push({ ok: false, error });
				if (!run.continueOnFail) break; // the node stops at the first failed item
			}
		}
		return run.output(outcomes);
	};
}

/** The input items read into requests, and how to turn their outcomes into the node's output. */
export interface ItemsRun<T> {
	/** One per input item that could be read, in input order. */
	requests: T[];
	/** "Continue On Fail", a setting of the whole run, read once. */
	continueOnFail: boolean;
	/**
	 * The output for one outcome per request, in order (fewer when the run stopped early: the
	 * requests after the last outcome produce no output). Output items are paired with their input
	 * items. With "Continue On Fail" a failed item is an error item; without it, the first failure
	 * (else the first held-back item) stops the node, and `summarise` may say how many went through.
	 */
	output(outcomes: ItemRun[], options?: { summarise?: () => string }): INodeExecutionData[];
}

/**
 * The node's one item loop, in two halves around the operation's own calls (perItem, Issue):
 * `read` turns each input item into a request, in order; an error there fails that item alone
 * (or stops the node before anything is sent, without "Continue On Fail"). The operation then
 * sends the requests (what it throws stops the node, mapped once by withClient) and hands the
 * outcomes to `output`.
 */
export function readItems<T>(context: IExecuteFunctions, read: (itemIndex: number) => T): ItemsRun<T> {
	const items = context.getInputData();
	const continueOnFail = context.continueOnFail();
	const output: INodeExecutionData[][] = items.map(() => []);
	const requests: T[] = [];
	const itemIndexes: number[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			requests.push(read(itemIndex));
			itemIndexes.push(itemIndex);
		} catch (error) {
			output[itemIndex].push(failedItem(context, error, itemIndex)); // throws without "Continue On Fail"
		}
	}

	return {
		requests,
		continueOnFail,
		output(outcomes, options = {}) {
			let firstFailure: { error: unknown; itemIndex: number } | undefined;
			let firstHeldBack: { error: unknown; itemIndex: number } | undefined;
			outcomes.forEach((outcome, k) => {
				const itemIndex = itemIndexes[k];
				if (outcome.ok) output[itemIndex].push(...resultItems(outcome.result, itemIndex));
				else if (continueOnFail) output[itemIndex].push(failedItem(context, outcome.error, itemIndex));
				else if (outcome.heldBack) firstHeldBack ??= { error: outcome.error, itemIndex };
				else firstFailure ??= { error: outcome.error, itemIndex };
			});
			firstFailure ??= firstHeldBack;
			if (firstFailure) {
				const nodeError = toNodeError(context.getNode(), firstFailure.error, firstFailure.itemIndex);
				if (options.summarise) {
					nodeError.description = [
						nodeError.description,
						options.summarise(),
						'Turn on "Continue On Fail" in the node settings to get one output item per input item, with its result or its error.',
					]
						.filter(Boolean)
						.join(' ');
				}
				throw nodeError;
			}
			return output.flat();
		},
	};
}
