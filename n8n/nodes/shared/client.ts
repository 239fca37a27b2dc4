import type {
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { CertificateServiceClient } from '@certificate-service/sdk/core';
import { toNodeError } from './errors';
import type { HttpResponse, Transport } from '@certificate-service/sdk/core';

export const CREDENTIAL_TYPE = 'certificateServiceApi';

/** Every n8n context that may call the service. */
export type ServiceContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions
	| IPollFunctions;

interface ServiceCredentials {
	apiKey?: string;
	baseUrl?: string;
}

function plainHeaders(headers: unknown): HttpResponse['headers'] {
	// axios hands back an AxiosHeaders instance; its toJSON() is the plain header map. The
	// core reads any letter case, and strings, numbers or lists as values.
	const source =
		headers && typeof (headers as { toJSON?: unknown }).toJSON === 'function'
			? (headers as { toJSON: () => unknown }).toJSON()
			: headers;
	return source && typeof source === 'object' ? (source as HttpResponse['headers']) : {};
}

/**
 * The core's transport over n8n's own HTTP stack. n8n adds the Bearer header from the
 * credential, so the key is never handled here. Every status resolves (the core maps
 * errors itself); a network failure rejects with n8n's NodeApiError, whose `cause` chain
 * still carries the socket error code the core's retry rules look for.
 */
export function createTransport(context: ServiceContext): Transport {
	return async (request) => {
		// The core's request is already {method, url, headers, body?}: only n8n's switches are added.
		const options: IHttpRequestOptions = { ...request, returnFullResponse: true, ignoreHttpStatusErrors: true };
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			options,
		)) as IN8nHttpFullResponse;
		return {
			status: response.statusCode,
			headers: plainHeaders(response.headers),
			body: response.body,
		};
	};
}

/**
 * Runs `run` with a client for this context (as `this`, so an operation's `execute` is passed
 * as it is): the one place an operation, a load-options method,
 * the poll and the trigger's hooks get their client and turn what it throws into n8n's error
 * (`toNodeError`; n8n's own errors are kept as they are).
 */
export async function withClient<C extends ServiceContext, T>(
	context: C,
	run: (this: C, client: CertificateServiceClient) => Promise<T>,
): Promise<T> {
	try {
		return await run.call(context, await getClient(context));
	} catch (error) {
		throw toNodeError(context.getNode(), error);
	}
}

/**
 * A client for this run. Pacing and 429 waits use n8n-workflow's `sleep`, and the API
 * key is passed only so it is redacted from any error message.
 */
export async function getClient(context: ServiceContext): Promise<CertificateServiceClient> {
	const credentials = (await context.getCredentials(CREDENTIAL_TYPE)) as ServiceCredentials;
	return new CertificateServiceClient({
		baseUrl: credentials.baseUrl ?? '',
		transport: createTransport(context),
		sleep,
		secrets: credentials.apiKey ? [credentials.apiKey] : [],
	});
}
