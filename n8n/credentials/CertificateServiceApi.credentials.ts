import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

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
			placeholder: 'https://certificates.example.com/api/v1',
			description:
				'The API base URL of your service. The /api/v1 suffix is added when missing. Must use https:// (http:// is accepted for localhost only).',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	// POST /auth checks the key and returns the workspace (spec section 4). The base URL
	// is normalised the same way the nodes do it: trailing slashes dropped, /api/v1 added once.
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{ String($credentials.baseUrl).trim().replace(/\\/+$/, "").replace(/\\/api\\/v1$/, "") }}/api/v1',
			url: '/auth',
			method: 'POST',
		},
	};
}
