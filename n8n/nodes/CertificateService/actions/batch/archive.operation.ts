import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { perItem } from '../../helpers/items';
import { locatorValue } from '../../helpers/params';
import { batchLocator } from '../common.descriptions';

const properties: INodeProperties[] = [batchLocator];

const displayOptions = { show: { resource: ['batch'], operation: ['archive'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** POST /batches/{id}/archive: Archives the batch (active → archived). */
export const execute = perItem(async (context, client, itemIndex) => {
	return (await client.archiveBatch(locatorValue(context, 'batch', itemIndex))) as IDataObject;
});
