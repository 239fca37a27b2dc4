import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { CertificateServiceClient } from '@certificate-service/sdk/core';
import { forEachItem } from '../../helpers/items';
import { locatorValue } from '../../helpers/params';
import { batchLocator } from '../common.descriptions';

const properties: INodeProperties[] = [batchLocator];

const displayOptions = { show: { resource: ['batch'], operation: ['unarchive'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** POST /batches/{id}/unarchive: Restores an archived batch (archived → active). */
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	return await forEachItem(this, async (itemIndex) => {
		return (await client.unarchiveBatch(locatorValue(this, 'batch', itemIndex))) as IDataObject;
	});
}
