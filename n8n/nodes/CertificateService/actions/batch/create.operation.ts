import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { CertificateServiceClient } from '@certificate-service/sdk/core';
import { forEachItem } from '../../helpers/items';
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
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	return await forEachItem(this, async (itemIndex) => {
		const title = stringParam(this, 'title', itemIndex);
		const designId = locatorValue(this, 'design', itemIndex);
		return (await client.createBatch({ title, designId })) as IDataObject;
	});
}
