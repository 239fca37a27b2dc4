import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { shareTokenFrom, validationError } from '@certificate-service/sdk/core';
import type { CertificateServiceClient, Recipient, RecipientChange } from '@certificate-service/sdk/core';

/**
 * The recipient ID of the "Recipient" locator: picked from the batch's list, given by ID,
 * or found from a certificate URL (the share token is resolved with the by-token lookup,
 * and the certificate must belong to the chosen batch). A plain string counts as an ID.
 */
export async function readRecipientId(
	context: IExecuteFunctions,
	client: CertificateServiceClient,
	batchId: string,
	itemIndex: number,
): Promise<string> {
	const raw = context.getNodeParameter('recipientId', itemIndex, '') as unknown;
	const locator =
		raw && typeof raw === 'object' ? (raw as { mode?: string; value?: unknown }) : { mode: 'id', value: raw };
	const value = typeof locator.value === 'number' ? String(locator.value) : locator.value;
	if (locator.mode !== 'url') return String(value ?? ''); // the core checks it on use, naming recipientId

	const certificate = await client.getCertificateByToken(client.check(() => shareTokenFrom(value, 'recipientId')));
	if (certificate.batchId !== batchId) {
		throw validationError(
			'recipientId',
			`the certificate of this URL belongs to batch ${certificate.batchId}, not to the chosen batch ${batchId}`,
		);
	}
	return certificate.id;
}

/** The ten fields "Simplify" keeps: enough to identify, address, link and re-find a certificate. */
export const SIMPLE_FIELDS = [
	'id',
	'batchId',
	'name',
	'email',
	'certificateId',
	'certUrl',
	'shareToken',
	'issueDate',
	'emailStatus',
	'data',
] as const;

export function simplifyRecipient(recipient: Recipient | RecipientChange | IDataObject): IDataObject {
	const source = recipient as IDataObject;
	const out: IDataObject = {};
	for (const key of SIMPLE_FIELDS) if (key in source) out[key] = source[key];
	return out;
}

/** A recipient as output: the ten fields with "Simplify" on, else all of it. */
export function shapeRecipient(recipient: Recipient | RecipientChange, simplify: boolean): IDataObject {
	return simplify ? simplifyRecipient(recipient) : (recipient as unknown as IDataObject);
}

/** The recipient(s) as output: simplified when the operation's "Simplify" is on (the default). */
export function recipientOutput(
	context: IExecuteFunctions,
	itemIndex: number,
	result: Recipient | RecipientChange | Recipient[],
): IDataObject | IDataObject[] {
	const simplify = context.getNodeParameter('simplify', itemIndex, true) as boolean;
	return Array.isArray(result) ? result.map((r) => shapeRecipient(r, simplify)) : shapeRecipient(result, simplify);
}
