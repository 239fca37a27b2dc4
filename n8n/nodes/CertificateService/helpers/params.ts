import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { validationError } from '@certificate-service/sdk/core';

// These helpers only read parameters. The core validates and normalises every value on
// its way to the wire (ids non-empty, email, variables), once, and names the field.

/** The value of a resource locator parameter (list or ID mode), as text. */
export function locatorValue(context: IExecuteFunctions, name: string, itemIndex: number): string {
	const value = context.getNodeParameter(name, itemIndex, '', { extractValue: true });
	return typeof value === 'number' ? String(value) : (value as string);
}

export function stringParam(context: IExecuteFunctions, name: string, itemIndex: number): string {
	const value = context.getNodeParameter(name, itemIndex, '');
	return typeof value === 'number' ? String(value) : (value as string);
}

/**
 * The certificate variables of one item as given (an object, or JSON text), or undefined
 * when they are to be left alone. The core checks them: a bad field name or a nested
 * value fails before any request.
 */
export function readData(context: IExecuteFunctions, itemIndex: number): IDataObject | string | undefined {
	const mode = context.getNodeParameter('specifyData', itemIndex, 'fields') as string;
	if (mode === 'keep') return undefined;
	if (mode === 'json') return context.getNodeParameter('dataJson', itemIndex, '{}') as IDataObject | string;
	const pairs = context.getNodeParameter('dataFields.field', itemIndex, []) as Array<{
		name?: string;
		value?: unknown;
	}>;
	const data: IDataObject = {};
	for (const pair of pairs) {
		// A row left completely empty is ignored; a value without a name is an error (in the core).
		if (!pair.name && (pair.value === undefined || pair.value === '')) continue;
		data[String(pair.name ?? '').trim()] = pair.value as IDataObject[string];
	}
	return data;
}

/** Return All / Limit as the number of items to collect (undefined = all). */
export function readLimit(context: IExecuteFunctions, itemIndex: number): number | undefined {
	if (context.getNodeParameter('returnAll', itemIndex, false) as boolean) return undefined;
	const limit = context.getNodeParameter('limit', itemIndex, 50) as number;
	if (!Number.isInteger(limit) || limit < 1) {
		throw validationError('limit', 'must be a whole number of at least 1');
	}
	return limit;
}
