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
import { batchLocator, recipientIdField } from '../common.descriptions';

const properties: INodeProperties[] = [batchLocator, recipientIdField];

const displayOptions = { show: { resource: ['certificate'], operation: ['get'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** GET /batches/{batchId}/recipients/{recipientId} */
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	return await forEachItem(this, async (itemIndex) => {
		const batchId = locatorValue(this, 'batch', itemIndex);
		const recipientId = stringParam(this, 'recipientId', itemIndex);
		return (await client.getRecipient(batchId, recipientId)) as IDataObject;
	});
}
