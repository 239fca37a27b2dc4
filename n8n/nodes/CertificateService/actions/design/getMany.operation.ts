import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { collect } from '@certificate-service/sdk/core';
import type { CertificateServiceClient } from '@certificate-service/sdk/core';
import { forEachItem } from '../../helpers/items';
import { readLimit } from '../../helpers/params';
import { limitField, returnAllField } from '../common.descriptions';

const properties: INodeProperties[] = [returnAllField, limitField];

const displayOptions = { show: { resource: ['design'], operation: ['getMany'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** GET /designs: the workspace's certificate designs (read-only). */
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	return await forEachItem(this, async (itemIndex) => {
		const limit = readLimit(this, itemIndex);
		return (await collect(client.iterateDesigns(), limit)) as IDataObject[];
	});
}
