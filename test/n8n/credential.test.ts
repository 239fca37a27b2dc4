/**
 * The credential (issue 12, item 6): its test and every node request go through
 * `authenticate`, which applies the core's one HTTPS rule (normaliseBaseUrl: https:// except on
 * loopback). So a credential whose test passes is one the nodes accept, and the test calls the
 * URL the nodes call. (n8n 2.41 runs a credential's declarative `test` through its routing node,
 * which calls a function `authenticate` like any request: services/credentials-tester.service.js;
 * the real-n8n e2e runs it.)
 */
import type { IHttpRequestOptions } from 'n8n-workflow';

import { CertificateServiceError } from '@certificate-service/sdk/core';
import { CertificateServiceApi } from '../../n8n/credentials/CertificateServiceApi.credentials';
import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { fakeExecute } from './fake-context';
import { API_KEY as KEY, BASE_URL, ORIGIN } from '../support/service';

const credential = new CertificateServiceApi();

/** What n8n's credential test sends: the declarative request, before authentication. */
const testRequest = (): IHttpRequestOptions => ({
	baseURL: 'unresolved',
	url: credential.test.request.url!,
	method: credential.test.request.method,
});

const authenticate = (baseUrl: string, request: IHttpRequestOptions) =>
	credential.authenticate({ apiKey: KEY, baseUrl }, request);

/** The node's answer for the same base URL: does its client accept it? */
async function nodeAccepts(baseUrl: string): Promise<boolean> {
	const fake = fakeExecute({ credentials: { apiKey: KEY, baseUrl }, params: { resource: 'design', operation: 'getMany', returnAll: true } });
	fake.context.helpers.httpRequestWithAuthentication = (async () => ({ statusCode: 200, headers: {}, body: [] })) as never;
	return await new CertificateService().execute.call(fake.context).then(
		() => true,
		() => false,
	);
}

describe('credential test and authenticate', () => {
	it('the test is POST /auth, resolved against the base URL normalised the way the nodes do it', async () => {
		expect(credential.test.request).toMatchObject({ url: '/auth', method: 'POST' });
		for (const [given, expected] of [
			['https://certs.example.com', 'https://certs.example.com/api/v1'],
			['https://certs.example.com/api/v1/', 'https://certs.example.com/api/v1'],
			['  https://certs.example.com/tenant//  ', 'https://certs.example.com/tenant/api/v1'],
			['http://localhost:8080', 'http://localhost:8080/api/v1'],
			['http://127.0.0.1:8080/api/v1', 'http://127.0.0.1:8080/api/v1'],
		]) {
			const out = await authenticate(given, testRequest());
			expect(out.baseURL).toBe(expected);
			expect(out.headers).toEqual({ Authorization: `Bearer ${KEY}` });
		}
	});

	it('a key pasted with spaces or a newline is sent trimmed, as every host sends it', async () => {
		const out = await credential.authenticate({ apiKey: ` ${KEY}\n`, baseUrl: ORIGIN }, testRequest());
		expect(out.headers).toEqual({ Authorization: `Bearer ${KEY}` });
	});

	it.each([
		['http://certs.example.com', /must use https:\/\//],
		['http://10.0.0.5/api/v1', /must use https:\/\//],
		['ftp://certs.example.com', /must use https:\/\//],
		['certs.example.com', /not a valid URL/],
		['', /base URL is required/],
		['https://certs.example.com/api/v1?x=1', /query string/],
		['https://certs.example.com/api/v2', /ends in \/api\/v2, but these connectors speak version 1 of the API: use https:\/\/certs\.example\.com\/api\/v1/],
	])('rejects %j in the test with the nodes\' message, and the node rejects it too', async (baseUrl, message) => {
		const error = await authenticate(baseUrl, testRequest()).then(
			() => undefined,
			(e: Error) => e,
		);
		expect(error?.message).toMatch(message);
		expect(error?.message).toMatch(/"baseUrl"/);
		expect(error).not.toHaveProperty('code'); // n8n's tester would show a code instead of the message
		expect(await nodeAccepts(baseUrl)).toBe(false);
	});

	it.each(['https://certs.example.com', 'http://localhost:3000/', 'http://[::1]:3000'])(
		'a base URL the test accepts (%s) is one the node accepts',
		async (baseUrl) => {
			await expect(authenticate(baseUrl, testRequest())).resolves.toBeDefined();
			expect(await nodeAccepts(baseUrl)).toBe(true);
		},
	);

	it('leaves the nodes\' absolute URLs alone but refuses to send the key to a clear-text URL', async () => {
		const out = await authenticate(ORIGIN, { url: `${BASE_URL}/designs`, method: 'GET' });
		expect(out.url).toBe(`${BASE_URL}/designs`);
		expect(out.baseURL).toBeUndefined();
		await expect(authenticate('https://certs.example.com', { url: 'http://evil.example.com/x' })).rejects.toThrow(/"url".*https/);
	});

	it("a refused test shows the core's hint for 401 and 429, and names the Base URL for 404", () => {
		const rules = (credential.test.rules ?? []) as Array<{ type: string; properties: { value: number; message: string } }>;
		expect(rules.every((r) => r.type === 'responseCode')).toBe(true);
		const message = (status: number) => rules.find((r) => r.properties.value === status)?.properties.message;
		expect(message(401)).toContain(new CertificateServiceError({ code: 'INVALID_API_KEY', status: 401, message: '' }).hint);
		expect(message(401)).toMatch(/^The service does not recognize the API key\. Copy the whole key again, or make a new one under Settings → API keys/);
		expect(message(429)).toMatch(/^The rate limit was reached: the service allows 120 requests per minute per API key/);
		expect(message(404)).toMatch(/Base URL.*\/api\/v1/);
	});

	it('never puts the key in an error', async () => {
		const error = (await authenticate('http://certs.example.com', testRequest()).catch((e: Error) => e)) as Error;
		expect(`${error.message} ${error.stack}`).not.toContain(KEY);
	});
});
