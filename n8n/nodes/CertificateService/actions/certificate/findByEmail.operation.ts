import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { emailKey, requireEmail } from '@certificate-service/sdk/core';
import type { CertificateServiceClient, Recipient } from '@certificate-service/sdk/core';
import { perItem } from '../../helpers/items';
import { locatorValue } from '../../helpers/params';
import { batchLocator, recipientEmailField, simplifyField } from '../common.descriptions';
import { recipientOutput } from './recipient';

const properties: INodeProperties[] = [
	batchLocator,
	recipientEmailField('The email address to look for; case does not matter'),
	simplifyField,
];

const displayOptions = { show: { resource: ['certificate'], operation: ['findByEmail'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/**
 * The certificates of a batch issued to an email (case-insensitive), for find-or-issue.
 * The service has no email filter, so the batch's list is read (100 a page), once per batch
 * and run however many items ask. No match is no output item, not an error: with the node
 * setting "Always Output Data" the workflow goes on with one empty item.
 */
export async function execute(
	this: IExecuteFunctions,
	client: CertificateServiceClient,
): Promise<INodeExecutionData[]> {
	const byBatch = new Map<string, Promise<Map<string, Recipient[]>>>();
	const indexOf = (batchId: string) => {
		let index = byBatch.get(batchId);
		if (!index) {
			index = client.recipientsByEmail(batchId);
			byBatch.set(batchId, index);
		}
		return index;
	};
	return await perItem(async (context, _client, itemIndex) => {
		const batchId = locatorValue(context, 'batch', itemIndex);
		const email = client.check(() => requireEmail(context.getNodeParameter('email', itemIndex, ''), 'email'));
		const matches = (await indexOf(batchId)).get(emailKey(email)) ?? [];
		return recipientOutput(context, itemIndex, matches);
	}).call(this, client);
}
