import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { perItem } from '../../helpers/items';
import { locatorValue } from '../../helpers/params';
import { batchLocator, recipientLocator } from '../common.descriptions';
import { readRecipientId } from './recipient';

const properties: INodeProperties[] = [batchLocator, recipientLocator];

const displayOptions = { show: { resource: ['certificate'], operation: ['delete'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** DELETE /batches/{batchId}/recipients/{recipientId} */
export const execute = perItem(async (context, client, itemIndex) => {
	const batchId = locatorValue(context, 'batch', itemIndex);
	const recipientId = await readRecipientId(context, client, batchId, itemIndex);
	return (await client.deleteRecipient(batchId, recipientId)) as IDataObject;
});
