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
		displayName: 'Certificate ID',
		name: 'certificateId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. CERT-2026-0042-7781',
		description: 'The human-readable certificate ID printed on the certificate, of the form CERT-…',
	},
];

const displayOptions = { show: { resource: ['lookup'], operation: ['byCertificateId'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** GET /certificates/{certificateId} */
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	return await forEachItem(this, async (itemIndex) => {
		const certificateId = stringParam(this, 'certificateId', itemIndex);
		return (await client.getCertificate(certificateId)) as IDataObject;
	});
}
