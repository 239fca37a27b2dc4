import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { CertificateServiceClient } from '@certificate-service/sdk/core';
import { forEachItem } from '../../helpers/items';
import { stringParam } from '../../helpers/params';

const properties: INodeProperties[] = [
	{
		displayName: 'Share Token',
		name: 'shareToken',
		// The share token is public (it is the last part of the certificate URL), so it is not masked.
		// eslint-disable-next-line n8n-nodes-base/node-param-type-options-password-missing
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 3kP9xQ2mVb',
		description: 'The public share token, the last part of the certificate URL (…/v/{token})',
	},
];

const displayOptions = { show: { resource: ['lookup'], operation: ['byShareToken'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** GET /certificates/by-token/{shareToken} */
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	return await forEachItem(this, async (itemIndex) => {
		const shareToken = stringParam(this, 'shareToken', itemIndex);
		return (await client.getCertificateByToken(shareToken)) as IDataObject;
	});
}
