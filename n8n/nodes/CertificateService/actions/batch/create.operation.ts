import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { perItem } from '../../helpers/items';
import { locatorValue, stringParam } from '../../helpers/params';
import { designLocator } from '../common.descriptions';

const properties: INodeProperties[] = [
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Advanced Welding, Spring 2026',
		description: 'Title of the batch',
	},
	designLocator,
];

const displayOptions = { show: { resource: ['batch'], operation: ['create'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** POST /batches: the batch starts as active. */
export const execute = perItem(async (context, client, itemIndex) => {
	const title = stringParam(context, 'title', itemIndex);
	const designId = locatorValue(context, 'design', itemIndex);
	return (await client.createBatch({ title, designId })) as IDataObject;
});
