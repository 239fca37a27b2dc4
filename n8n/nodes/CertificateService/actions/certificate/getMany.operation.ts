import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { collect, MAX_PAGE_SIZE } from '@certificate-service/sdk/core';
import type { CertificateServiceClient } from '@certificate-service/sdk/core';
import { forEachItem } from '../../helpers/items';
import { locatorValue, readLimit } from '../../helpers/params';
import { batchLocator, limitField, returnAllField } from '../common.descriptions';

const properties: INodeProperties[] = [
	batchLocator,
	returnAllField,
	limitField,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Email Status',
				name: 'emailStatus',
				type: 'string',
				default: '',
				placeholder: 'e.g. sent',
				description: 'Only return certificates whose email is in this state, for example sent',
			},
		],
	},
];

const displayOptions = { show: { resource: ['certificate'], operation: ['getMany'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** GET /batches/{batchId}/recipients, following the cursor only as far as needed. */
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	return await forEachItem(this, async (itemIndex) => {
		const batchId = locatorValue(this, 'batch', itemIndex);
		const limit = readLimit(this, itemIndex);
		const filters = this.getNodeParameter('filters', itemIndex, {}) as { emailStatus?: string };
		const recipients = client.iterateRecipients(batchId, {
			emailStatus: filters.emailStatus?.trim() || undefined,
			limit: Math.min(limit ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE),
		});
		return (await collect(recipients, limit)) as IDataObject[];
	});
}
