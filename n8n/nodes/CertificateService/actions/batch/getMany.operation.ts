import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { collect } from '@certificate-service/sdk/core';
import type { BatchStatusFilter } from '@certificate-service/sdk/core';
import { perItem } from '../../helpers/items';
import { pageSize, readLimit } from '../../helpers/params';
import { getManyFields } from '../common.descriptions';

const properties: INodeProperties[] = [
	...getManyFields,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: [
					{ name: 'Active', value: 'active' },
					{ name: 'All', value: 'all' },
					{ name: 'Archived', value: 'archived' },
				],
				default: 'active',
				description: 'Only return batches in this state',
			},
		],
	},
];

const displayOptions = { show: { resource: ['batch'], operation: ['getMany'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** GET /batches, following the cursor only as far as needed. */
export const execute = perItem(async (context, client, itemIndex) => {
	const limit = readLimit(context, itemIndex);
	const filters = context.getNodeParameter('filters', itemIndex, {}) as { status?: BatchStatusFilter };
	const batches = client.iterateBatches({
		status: filters.status,
		limit: pageSize(limit),
	});
	return (await collect(batches, limit)) as IDataObject[];
});
