import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { perItem } from '../../helpers/items';
import { simplifyField } from '../common.descriptions';
import { recipientOutput } from './recipient';

const properties: INodeProperties[] = [
	{
		displayName: 'Share Token or URL',
		name: 'shareToken',
		// The share token is public (it is the last part of the certificate URL), so it is not masked.
		// eslint-disable-next-line n8n-nodes-base/node-param-type-options-password-missing
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://certificates.example.com/v/3kP9xQ2mVb',
		description:
			'The public share token, or the whole certificate URL (certUrl) that ends in /v/{token}',
	},
	simplifyField,
];

const displayOptions = { show: { resource: ['certificate'], operation: ['getByShareToken'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** GET /certificates/by-token/{shareToken}, the token taken from a certificate URL if one is given. */
export const execute = perItem(async (context, client, itemIndex) => {
	const shareToken = String(context.getNodeParameter('shareToken', itemIndex, '') ?? ''); // a token or a certificate URL: the core reads either
	return recipientOutput(context, itemIndex, await client.getCertificateByToken(shareToken));
});
