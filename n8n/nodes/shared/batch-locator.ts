import type { INodeProperties } from 'n8n-workflow';

/**
 * The one batch picker of every node: a searchable list (paged by the service's cursor) or an ID.
 * `any` is the placeholder of an optional one (a trigger's filter, empty for all batches).
 */
export function batchLocator(overrides: { description: string; required?: boolean; any?: string; displayOptions?: INodeProperties['displayOptions'] }): INodeProperties {
	const { description, required = true, any, displayOptions } = overrides;
	return {
		displayName: 'Batch',
		name: 'batch',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		...(required ? { required: true } : {}),
		description,
		...(displayOptions ? { displayOptions } : {}),
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: any ?? 'Select a batch...',
				typeOptions: { searchListMethod: 'searchBatches', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. batch_8f2k1x',
			},
		],
	};
}
