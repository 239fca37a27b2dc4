import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { collect } from '@certificate-service/sdk/core';
import { perItem } from '../../helpers/items';
import { readLimit } from '../../helpers/params';
import { getManyFields } from '../common.descriptions';

const properties: INodeProperties[] = getManyFields;

const displayOptions = { show: { resource: ['design'], operation: ['getMany'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** GET /designs: the workspace's certificate designs (read-only). */
export const execute = perItem(async (context, client, itemIndex) => {
	const limit = readLimit(context, itemIndex);
	return (await collect(client.iterateDesigns(), limit)) as IDataObject[];
});
