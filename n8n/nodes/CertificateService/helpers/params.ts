import type { IDataObject, IExecuteFunctions, ResourceMapperValue } from 'n8n-workflow';

import { MAX_PAGE_SIZE, validationError, type DesignVariable } from '@certificate-service/sdk/core';

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
	if (mode === 'mapVariables') return readMappedVariables(context, itemIndex);
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

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && !v.trim());

function mapperColumns(context: IExecuteFunctions, itemIndex: number): { mapper: ResourceMapperValue | null; columns: ResourceMapperValue['schema'] } {
	const mapper = context.getNodeParameter('variables', itemIndex, null) as ResourceMapperValue | null;
	return { mapper, columns: (mapper?.schema ?? []).filter((c) => !c.removed && c.display !== false) };
}

/**
 * "Map Design Variables": the columns filled in below ("Map Each Column Manually"), or the
 * input item's fields of the same names ("Map Automatically"). A column left empty is not
 * sent: on Update it keeps the certificate's value; on Issue, a required one fails the item
 * in the core's issue plan (see mappedVariables).
 */
function readMappedVariables(context: IExecuteFunctions, itemIndex: number): IDataObject | undefined {
	const { mapper, columns } = mapperColumns(context, itemIndex);
	let given: IDataObject;
	if (mapper?.mappingMode === 'autoMapInputData') {
		const json = context.getInputData()[itemIndex]?.json ?? {};
		given = Object.fromEntries(columns.filter((c) => c.id in json).map((c) => [c.id, json[c.id]]));
	} else {
		given = (mapper?.value ?? {}) as IDataObject;
	}
	const data: IDataObject = {};
	for (const [name, value] of Object.entries(given)) if (!isBlank(value)) data[name] = value;
	return Object.keys(data).length ? data : undefined;
}

/** How a mapper column learned from the batch's certificates is labelled (the design lists no variables). */
export const SEEN_IN_BATCH = ' (seen in this batch)';

/**
 * The design's variables as the resource mapper saved them with the node (what the user saw),
 * for the core to check before any request; undefined unless "Map Design Variables" is used.
 * Names seen in the batch stay `seen`: they are no list of what the design allows. The service
 * still checks against the design as it is now.
 */
export function mappedVariables(context: IExecuteFunctions, itemIndex: number): DesignVariable[] | undefined {
	if (context.getNodeParameter('specifyData', itemIndex, 'fields') !== 'mapVariables') return undefined;
	return mapperColumns(context, itemIndex).columns.map((c) => ({
		name: c.id,
		label: c.displayName || c.id,
		required: c.required === true,
		source: c.displayName?.endsWith(SEEN_IN_BATCH) ? ('seen' as const) : ('design' as const),
	}));
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

/** The page size to ask for when `limit` items are wanted (undefined = all): at most one full page. */
export function pageSize(limit: number | undefined): number {
	return Math.min(limit ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
}
