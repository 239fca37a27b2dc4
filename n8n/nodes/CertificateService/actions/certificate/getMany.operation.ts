import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { collect, MAX_PAGE_SIZE } from '@certificate-service/sdk/core';
import type { CertificateServiceClient } from '@certificate-service/sdk/core';
import { forEachItem } from '../../helpers/items';
import { locatorValue, readLimit } from '../../helpers/params';
import { batchLocator, limitField, returnAllField, simplifyField } from '../common.descriptions';
import { recipientOutput } from './recipient';

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
				type: 'options',
				default: 'sent',
				description: 'Only return certificates whose email is in this state',
				options: [
					{ name: 'Failed', value: 'failed', description: 'The mail provider rejected the email' },
					{ name: 'Not Sent', value: 'not_sent', description: 'The email has not been sent yet' },
					{ name: 'Queued', value: 'queued', description: 'The email is waiting to be sent' },
					{ name: 'Sent', value: 'sent', description: 'The email was handed to the mail provider' },
				],
			},
		],
	},
	simplifyField,
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
		return recipientOutput(this, itemIndex, await collect(recipients, limit));
	});
}
