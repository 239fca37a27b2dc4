import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { apiKeyFrom, CertificateServiceError, normaliseBaseUrl, parseSecureUrl } from '@certificate-service/sdk/core';
import type { ErrorCode } from '@certificate-service/sdk/core';

/** What to do about a refused test, in the core's words (n8n would show only "Unauthorized"). */
const hintFor = (code: ErrorCode, status: number) => new CertificateServiceError({ code, status, message: '' }).hint;

/**
 * Shown under the Base URL field. When nothing answers, n8n 2.41's credential test shows only the
 * socket or TLS code (credentials-tester.service.js: `message: error.cause.code`), and a credential
 * cannot change that (see `test` below), so the field says what each code means, as the nodes'
 * errors do (the core's network errors and hints).
 */
const BASE_URL_HINT =
	'If saving shows only a code: ECONNREFUSED, ENOTFOUND or ETIMEDOUT means nothing answered at this address (check the host and port, and that the machine n8n runs on can reach them); ' +
	'EPROTO, that the server does not answer in HTTPS (a plain http:// server, such as a local sandbox: use http://, allowed for localhost only); ' +
	'DEPTH_ZERO_SELF_SIGNED_CERT or another certificate code, that its TLS certificate is not trusted there (self-signed, expired, or for another name).';

/**
 * The workspace API key and the service's base URL. The key implies the workspace
 * (spec section 5), so nothing else is asked for.
 */
export class CertificateServiceApi implements ICredentialType {
	name = 'certificateServiceApi';

	displayName = 'Certificate Service API';

	icon: Icon = {
		light: 'file:../icons/certificateService.svg',
		dark: 'file:../icons/certificateService.dark.svg',
	};

	// The build stamps publisher.json's docs link over this literal (n8n's lint wants a literal here).
	documentationUrl =
		'https://github.com/certificate-service/certificate-service-connectors/tree/main/n8n#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'A workspace API key, created in the web application under the API keys settings. It is shown only once when created.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. https://certificates.example.com/api/v1',
			description:
				'The API base URL of your service. The /api/v1 suffix is added when missing. Must use https:// (http:// is accepted for localhost only).',
			hint: BASE_URL_HINT,
		},
	];

	/**
	 * Adds the Bearer key to every request, after the one HTTPS rule of the core: the base URL
	 * must be https:// except on loopback (normaliseBaseUrl, as the nodes' client applies it),
	 * so a credential whose test passes is one the nodes accept. The test request below is
	 * relative (`/auth`); it is resolved here against the normalised base URL, so the test
	 * calls exactly the URL the nodes call. The nodes' requests are absolute already.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		let baseUrl: string;
		try {
			baseUrl = normaliseBaseUrl(credentials.baseUrl);
			if (requestOptions.baseURL === undefined) parseSecureUrl(requestOptions.url, 'url');
		} catch (error) {
			// Rethrown without the service error's `code`: n8n's credential test shows an
			// error's code instead of its message when it has one.
			throw new Error((error as Error).message);
		}
		if (requestOptions.baseURL !== undefined) requestOptions.baseURL = baseUrl;
		requestOptions.headers = {
			...requestOptions.headers,
			// Trimmed, as every host sends it: a key pasted with a trailing newline still works.
			Authorization: `Bearer ${apiKeyFrom(credentials.apiKey) ?? ''}`,
		};
		return requestOptions;
	}

	// POST /auth checks the key and returns the workspace (spec section 4). `authenticate`
	// above replaces the base URL with the normalised one, or rejects it (http:// off loopback).
	// Kept declarative, although a request that gets no answer then shows n8n's bare code
	// (ECONNREFUSED, EPROTO, DEPTH_ZERO_SELF_SIGNED_CERT), hence BASE_URL_HINT: in n8n 2.41 a
	// node's `credentialTest` gets only the deprecated `helpers.request` (lint error), and global
	// fetch would bypass n8n's outbound proxy and SSRF policy that the nodes' requests go through.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl }}',
			url: '/auth',
			method: 'POST',
		},
		// n8n shows a rule's message when the test's status matches; otherwise only the status text.
		rules: [
			{ type: 'responseCode', properties: { value: 401, message: `The service does not recognize the API key. ${hintFor('INVALID_API_KEY', 401)}` } },
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'No Certificate Service API answered at this Base URL: use the API address of your service, e.g. https://certificates.example.com/api/v1.',
				},
			},
			{ type: 'responseCode', properties: { value: 429, message: hintFor('RATE_LIMITED', 429) } },
		],
	};
}
