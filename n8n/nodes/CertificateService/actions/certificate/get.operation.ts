import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { perItem } from '../../helpers/items';
import { locatorValue } from '../../helpers/params';
import { batchLocator, recipientLocator, simplifyField } from '../common.descriptions';
import { readRecipientId, recipientOutput } from './recipient';

const properties: INodeProperties[] = [batchLocator, recipientLocator, simplifyField];

const displayOptions = { show: { resource: ['certificate'], operation: ['get'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** GET /batches/{batchId}/recipients/{recipientId} */
export const execute = perItem(async (context, client, itemIndex) => {
	const batchId = locatorValue(context, 'batch', itemIndex);
	const recipientId = await readRecipientId(context, client, batchId, itemIndex);
	return recipientOutput(context, itemIndex, await client.getRecipient(batchId, recipientId));
});
