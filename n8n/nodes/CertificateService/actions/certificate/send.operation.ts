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
import { batchLocator, recipientLocator } from '../common.descriptions';
import { readRecipientId } from './recipient';

const properties: INodeProperties[] = [batchLocator, recipientLocator];

const displayOptions = { show: { resource: ['certificate'], operation: ['send'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** POST /batches/{batchId}/recipients/{recipientId}/send: queues the certificate email. */
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	return await forEachItem(this, async (itemIndex) => {
		const batchId = locatorValue(this, 'batch', itemIndex);
		const recipientId = await readRecipientId(this, client, batchId, itemIndex);
		return (await client.sendCertificate(batchId, recipientId)) as IDataObject;
	});
}
