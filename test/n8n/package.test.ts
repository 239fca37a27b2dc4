/**
 * The publishable package: `npm pack` contents, a dist that n8n can load (no runtime
 * dependencies), and the pieces that only run inside n8n (credential
 * test expression, n8n's error wrapping). n8n's own checks of it are in lint.process.test.ts.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { INode, INodeTypeDescription } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, Workflow } from 'n8n-workflow';

import { classifyNetworkError } from '../../shared/sdk/src/network-errors';
import { getHeader } from '@certificate-service/sdk/core';
import { createTransport } from '../../n8n/nodes/shared/client';
import { CertificateServiceApi } from '../../n8n/credentials/CertificateServiceApi.credentials';
import { ensurePackageBuilt, PACKAGE_DIR as N8N, packageJson } from '../e2e/n8n/package-setup';

const run = promisify(execFile);
const DIST = path.join(N8N, 'dist');
const pkg = packageJson();


// `npm test` builds first; run on its own, this builds only when dist is older than the sources.
beforeAll(() => ensurePackageBuilt(), 60_000);

describe('npm pack', () => {
	it('ships only dist, CHANGELOG, README, LICENSE and package.json', async () => {
		const { stdout } = await run('npm', ['pack', '--dry-run', '--json'], { cwd: N8N });
		const [packed] = JSON.parse(stdout) as Array<{ name: string; files: Array<{ path: string }> }>;
		expect(packed.name).toBe('n8n-nodes-certificate-service');
		const files = packed.files.map((f) => f.path).sort();
		expect(files.filter((f) => !f.startsWith('dist/'))).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']);
		expect(files.filter((f) => f.startsWith('dist/'))).toEqual([
			'dist/credentials/CertificateServiceApi.credentials.js',
			'dist/icons/certificateService.dark.svg',
			'dist/icons/certificateService.svg',
			'dist/nodes/CertificateService/CertificateService.node.js',
			'dist/nodes/CertificateService/CertificateService.node.json',
			'dist/nodes/CertificateServicePollTrigger/CertificateServicePollTrigger.node.js',
			'dist/nodes/CertificateServicePollTrigger/CertificateServicePollTrigger.node.json',
			'dist/nodes/CertificateServiceTrigger/CertificateServiceTrigger.node.js',
			'dist/nodes/CertificateServiceTrigger/CertificateServiceTrigger.node.json',
		]);
	}, 30_000);

	it('package.json follows the community node conventions', () => {
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.license).toBe('MIT');
		expect(pkg.files).toEqual(['dist', 'CHANGELOG.md']);
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(pkg.n8n.n8nNodesApiVersion).toBe(1);
		for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
			expect(file).toMatch(/^dist\//);
			expect(fs.existsSync(path.join(N8N, file))).toBe(true);
		}
	});
});

describe('dist', () => {
	it('loads the way n8n loads it: class named after the file, codex and icons next to it', () => {
		for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials] as string[]) {
			const full = path.join(N8N, file);
			const className = path.basename(file).split('.')[0];
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const Cls = require(full)[className];
			expect(typeof Cls).toBe('function');
			const instance = new Cls();
			const icon = (instance.description ?? instance).icon as { light: string; dark: string };
			for (const variant of [icon.light, icon.dark]) {
				expect(fs.existsSync(path.resolve(path.dirname(full), variant.replace('file:', '')))).toBe(true);
			}
			if (file.includes('/nodes/')) {
				const codex = JSON.parse(fs.readFileSync(full.replace(/\.js$/, '.json'), 'utf8'));
				expect(codex.node).toBe(`n8n-nodes-certificate-service.${instance.description.name}`);
			}
		}
	});

	it('requires nothing but n8n-workflow and crypto (the core is compiled in)', () => {
		for (const file of pkg.n8n.nodes as string[]) {
			const text = fs.readFileSync(path.join(N8N, file), 'utf8');
			const required = new Set([...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
			for (const name of required) expect(['n8n-workflow', 'crypto']).toContain(name);
			// the core, bundled and readable (not minified)
			expect(text).toMatch(/var CertificateServiceClient = class \{/);
			expect(text).toContain('function classifyNetworkError(error) {');
		}
	});

	it('node descriptions: usable as a tool, trigger webhook set up for POST', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { CertificateService } = require(path.join(DIST, 'nodes/CertificateService/CertificateService.node.js'));
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { CertificateServiceTrigger } = require(
			path.join(DIST, 'nodes/CertificateServiceTrigger/CertificateServiceTrigger.node.js'),
		);
		const node = new CertificateService().description as INodeTypeDescription;
		const trig = new CertificateServiceTrigger().description as INodeTypeDescription;
		expect(node.usableAsTool).toBe(true);
		expect(node.credentials).toEqual([{ name: 'certificateServiceApi', required: true }]);
		expect(trig.webhooks).toEqual([{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', responseData: '', path: 'webhook' }]);
		expect(trig.inputs).toEqual([]);
	});
});

describe('inside n8n', () => {
	const node: INode = { id: '1', name: 'n', type: 't', typeVersion: 1, position: [0, 0], parameters: {} };

	it('the credential test URL normalises the base URL like the nodes do', async () => {
		const nodeTypes = {
			getByName: () => ({ description: { properties: [] } }),
			getByNameAndVersion: () => ({ description: { properties: [] } }),
			getKnownTypes: () => ({}),
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: nodeTypes as never });
		const credential = new CertificateServiceApi();
		const { request } = credential.test;
		expect(request).toMatchObject({ url: '/auth', method: 'POST' });
		// n8n resolves the request's expressions, then runs the credential's authenticate on it
		const resolve = async (baseUrl: string) => {
			const baseURL = workflow.expression.getSimpleParameterValue(node, request.baseURL as string, 'manual', {
				$credentials: { baseUrl },
			} as never) as string;
			const out = await credential.authenticate({ apiKey: 'k', baseUrl }, { url: request.url!, baseURL, method: request.method });
			return out.baseURL;
		};
		for (const input of ['https://x.test', 'https://x.test/', 'https://x.test/api/v1', ' https://x.test/api/v1/ ']) {
			expect(await resolve(input)).toBe('https://x.test/api/v1');
		}
		expect(await resolve('https://x.test/tenant')).toBe('https://x.test/tenant/api/v1');
	});

	it('the core still recognises socket errors that n8n wraps in NodeApiError', () => {
		const axiosError = (code: string) => Object.assign(new Error(`connect ${code}`), { name: 'AxiosError', code });
		expect(classifyNetworkError(new NodeApiError(node, axiosError('ECONNRESET') as never))).toBe('NETWORK_ERROR');
		expect(classifyNetworkError(new NodeApiError(node, axiosError('ECONNREFUSED') as never))).toBe('NETWORK_ERROR');
		expect(classifyNetworkError(new NodeApiError(node, axiosError('ETIMEDOUT') as never))).toBe('TIMEOUT');
		expect(classifyNetworkError(new NodeApiError(node, axiosError('ECONNABORTED') as never))).toBe('TIMEOUT');
		// n8n's own errors (e.g. a missing credential) are not network errors and pass through
		expect(classifyNetworkError(new NodeOperationError(node, 'No credentials'))).toBeUndefined();
	});

	it('the transport reads axios-style headers (toJSON) and passes every status through', async () => {
		const calls: unknown[] = [];
		const context = {
			helpers: {
				httpRequestWithAuthentication: async (type: string, options: unknown) => {
					calls.push([type, options]);
					return {
						statusCode: 429,
						headers: { toJSON: () => ({ 'Retry-After': '7', 'RateLimit-Remaining': 0 }) },
						body: { error: 'RATE_LIMITED' },
					};
				},
			},
		};
		const transport = createTransport(context as never);
		const response = await transport({ method: 'POST', url: 'https://x.test/api/v1/auth', headers: { A: 'b' }, body: '{}' });
		expect(response).toMatchObject({ status: 429, body: { error: 'RATE_LIMITED' } });
		// handed over as the plain map; the core reads it in any letter case, numbers too
		expect(getHeader(response.headers, 'retry-after')).toBe('7');
		expect(getHeader(response.headers, 'ratelimit-remaining')).toBe('0');
		expect(calls).toEqual([
			[
				'certificateServiceApi',
				{
					method: 'POST',
					url: 'https://x.test/api/v1/auth',
					headers: { A: 'b' },
					body: '{}',
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
				},
			],
		]);
	});
});
