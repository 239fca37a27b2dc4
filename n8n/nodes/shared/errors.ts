import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CertificateServiceError, hostHint } from '@certificate-service/sdk/core';
import type { ErrorPhase, HostWords } from '@certificate-service/sdk/core';

/** n8n's words after the core's hint: where the key lives, which triggers hold a subscription. */
export const N8N_WORDS: HostWords = {
	auth: 'Put the key in the Certificate Service API credential this node uses.',
	'issue-unknown': 'Run the workflow again with "Skip Emails Already Issued in This Batch" on: it issues only what is missing.',
	'subscription-limit':
		'In n8n, each active workflow with the Certificate Service Trigger holds one, and one more while the trigger listens for a test event; the Certificate Service Poll Trigger holds none. Subscriptions left by an n8n instance that moved or lost its database are listed by "certsvc subscriptions list" and removed by "certsvc subscriptions delete <id>".',
	'unexpected-response': 'Check the Base URL in the Certificate Service API credential.',
	unreachable: 'Check the Base URL in the Certificate Service API credential: it must be reachable from the machine n8n runs on.',
	'unknown-variable': 'On Issue, Options → Allow Unknown Variables sends such variables as given.',
};

type NodeError = NodeApiError | NodeOperationError;

/**
 * The one table from the core's error to n8n's, by where the call failed. The core says
 * what happened (`message`) and what to do next (`hint`); n8n adds its own words (N8N_WORDS).
 * - validation: refused before anything was sent → NodeOperationError naming the field;
 * - request (no reliable answer), transport (n8n's HTTP helper failed) and response (the
 *   service's answer) → NodeApiError with the service's code and HTTP status.
 */
const BY_PHASE: Record<ErrorPhase, (node: INode, error: CertificateServiceError, itemIndex?: number) => NodeError> = {
	validation: (node, error, itemIndex) =>
		new NodeOperationError(node, error.message, {
			itemIndex,
			description: [`${error.field ? `Check the "${error.field}" value. ` : ''}Nothing was sent to the service.`, hostHint(error, N8N_WORDS)].filter(Boolean).join(' '),
		}),
	request: apiError,
	transport: apiError,
	response: apiError,
};

function apiError(node: INode, error: CertificateServiceError, itemIndex?: number): NodeApiError {
	const hint = hostHint(error, N8N_WORDS);
	const facts = `Service error code ${error.code}${error.status ? ` (HTTP ${error.status})` : ''}.${error.field ? ` Field: ${error.field}.` : ''}`;
	const nodeError = new NodeApiError(node, error.toJSON() as JsonObject, {
		message: error.message,
		description: hint ? `${facts} ${hint}` : facts,
		httpCode: error.status ? String(error.status) : undefined,
		itemIndex,
	});
	// NodeApiError swaps messages that mention socket codes (ECONNRESET, ...) for a generic
	// text; ours already says what happened.
	nodeError.message = error.message;
	return nodeError;
}

/** Any error of an operation as an n8n error; n8n's own errors (missing credential, ...) are kept. */
export function toNodeError(node: INode, error: unknown, itemIndex?: number): NodeError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (itemIndex !== undefined && error.context.itemIndex === undefined) {
			error.context.itemIndex = itemIndex;
		}
		return error;
	}
	if (error instanceof CertificateServiceError) return BY_PHASE[error.phase](node, error, itemIndex);
	const message = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(node, message, { itemIndex });
}

/** The JSON of an error item when "Continue On Fail" is on: the message plus the service's code. */
export function errorJson(nodeError: NodeError, original: unknown): IDataObject {
	const json: IDataObject = { error: nodeError.message };
	if (original instanceof CertificateServiceError) {
		json.code = original.code;
		json.phase = original.phase;
		if (original.status) json.status = original.status;
		if (original.field) json.field = original.field;
		if (original.outcomeUnknown) json.outcomeUnknown = true;
	}
	if (nodeError.description) json.description = nodeError.description;
	return json;
}
