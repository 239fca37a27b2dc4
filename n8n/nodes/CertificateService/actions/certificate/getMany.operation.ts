import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { collect } from '@certificate-service/sdk/core';
import { perItem } from '../../helpers/items';
import { locatorValue, pageSize, readLimit } from '../../helpers/params';
import { batchLocator, getManyFields, simplifyField } from '../common.descriptions';
import { recipientOutput } from './recipient';

const properties: INodeProperties[] = [
	batchLocator,
	...getManyFields,
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
				// The API reference shows only "sent" (and "failed" through its event); the other two
				// are the states the sandbox chose (@certificate-service/sandbox choices.ts, kept equal by a test).
				description: 'Only return certificates whose email is in this state. The API reference lists only Sent and Failed; the other states are assumed.',
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
export const execute = perItem(async (context, client, itemIndex) => {
	const batchId = locatorValue(context, 'batch', itemIndex);
	const limit = readLimit(context, itemIndex);
	const filters = context.getNodeParameter('filters', itemIndex, {}) as { emailStatus?: string };
	const recipients = client.iterateRecipients(batchId, {
		emailStatus: filters.emailStatus?.trim() || undefined,
		limit: pageSize(limit),
	});
	return recipientOutput(context, itemIndex, await collect(recipients, limit));
});
