import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { perItem } from '../../helpers/items';
import { stringParam } from '../../helpers/params';
import { simplifyField } from '../common.descriptions';
import { recipientOutput } from './recipient';

const properties: INodeProperties[] = [
	{
		displayName: 'Certificate ID',
		name: 'certificateId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. CERT-2026-0042-7781',
		description: 'The human-readable certificate ID printed on the certificate, of the form CERT-…',
	},
	simplifyField,
];

const displayOptions = { show: { resource: ['certificate'], operation: ['getByCertificateId'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** GET /certificates/{certificateId} */
export const execute = perItem(async (context, client, itemIndex) => {
	const certificateId = stringParam(context, 'certificateId', itemIndex);
	return recipientOutput(context, itemIndex, await client.getCertificate(certificateId));
});
