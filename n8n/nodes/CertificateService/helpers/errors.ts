import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CertificateServiceError } from '@certificate-service/sdk/core';

/**
 * The one place service errors become n8n errors:
 * - input rejected by the core's validation before anything was sent → NodeOperationError
 * - an answer from the service, or no answer at all → NodeApiError with the service's code
 * - an n8n error (missing credential, ...) is kept as it is.
 */
export function toNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
	options: { sent?: boolean } = {},
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (itemIndex !== undefined && error.context.itemIndex === undefined) {
			error.context.itemIndex = itemIndex;
		}
		return error;
	}

	if (error instanceof CertificateServiceError) {
		// A per-item error inside a bulk response also has no HTTP status of its own; the
		// caller says `sent` for those, so they are reported as the service's answer.
		const neverSent = !options.sent && error.status === 0 && error.code === 'VALIDATION_ERROR';
		if (neverSent) {
			return new NodeOperationError(node, error.message, {
				itemIndex,
				description: error.field
					? `Check the "${error.field}" value. Nothing was sent to the service.`
					: 'Nothing was sent to the service.',
			});
		}
		const apiError = new NodeApiError(node, error.toJSON() as JsonObject, {
			message: error.message,
			description: describe(error),
			httpCode: error.status ? String(error.status) : undefined,
			itemIndex,
		});
		// NodeApiError swaps messages that mention socket codes (ECONNRESET, ...) for a generic
		// text; ours already says what happened and, for an issue call, that it was not repeated.
		apiError.message = error.message;
		return apiError;
	}

	const message = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(node, message, { itemIndex });
}

function describe(error: CertificateServiceError): string {
	const parts = [
		`Service error code ${error.code}${error.status ? ` (HTTP ${error.status})` : ''}.`,
	];
	if (error.field) parts.push(`Field: ${error.field}.`);
	if (error.isAuthError) parts.push('Check the API key in the Certificate Service credential.');
	if (error.code === 'RATE_LIMITED') {
		parts.push(
			'More than 120 requests per minute were made with this key; the node already waited and retried. Try again later or spread the work out.',
		);
	}
	if (error.outcomeUnknown) {
		parts.push(
			'The request may or may not have been applied. It was not retried, so nothing is applied twice. Check the service before running it again.',
		);
	}
	return parts.join(' ');
}

/** The JSON of an error item when "Continue On Fail" is on: the message plus the service's code. */
export function errorJson(nodeError: NodeApiError | NodeOperationError, original: unknown): IDataObject {
	const json: IDataObject = { error: nodeError.message };
	if (original instanceof CertificateServiceError) {
		json.code = original.code;
		if (original.status) json.status = original.status;
		if (original.field) json.field = original.field;
		if (original.outcomeUnknown) json.outcomeUnknown = true;
	}
	if (nodeError.description) json.description = nodeError.description;
	return json;
}
