import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { validateUpdate } from '@certificate-service/sdk/core';
import type { RecipientUpdate } from '@certificate-service/sdk/core';
import { perItem } from '../../helpers/items';
import { locatorValue, readData } from '../../helpers/params';
import {
	batchLocator,
	dataFieldsProperties,
	recipientLocator,
	simplifyField,
} from '../common.descriptions';
import { readRecipientId, recipientOutput } from './recipient';

const properties: INodeProperties[] = [
	batchLocator,
	recipientLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Recipient Email',
				name: 'email',
				type: 'string',
				placeholder: 'e.g. name@email.com',
				default: '',
				description: 'New email address of the recipient',
			},
			{
				displayName: 'Recipient Name',
				name: 'name',
				type: 'string',
				default: '',
				placeholder: 'e.g. Ada Lovelace',
				description: 'New name printed on the certificate',
			},
		],
	},
	...dataFieldsProperties({ allowKeep: true }),
	simplifyField,
];

const displayOptions = { show: { resource: ['certificate'], operation: ['update'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** PATCH /batches/{batchId}/recipients/{recipientId} with only the fields to change. */
export const execute = perItem(async (context, client, itemIndex) => {
	const batchId = locatorValue(context, 'batch', itemIndex);
	const fields = context.getNodeParameter('updateFields', itemIndex, {}) as RecipientUpdate;
	const update: RecipientUpdate = {};
	if (fields.name !== undefined) update.name = fields.name;
	if (fields.email !== undefined) update.email = fields.email;
	const data = readData(context, itemIndex);
	if (data !== undefined) update.data = data;
	client.check(() => validateUpdate(update)); // before a certificate URL is looked up
	const recipientId = await readRecipientId(context, client, batchId, itemIndex);
	return recipientOutput(context, itemIndex, await client.updateRecipient(batchId, recipientId, update));
});
