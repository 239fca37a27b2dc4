/**
 * The example workflows of n8n/examples (issue 12, item 7) in a REAL n8n 2.41.1 against the
 * sandbox: each file is imported as it is shipped, with only what a user fills in after import
 * (the credential, the batch, the Slack URL) set, and run. The trigger example is published and
 * fed a signed delivery by the sandbox; its "Slack" request goes to a local capture server.
 * Also the credential test of issue 12 item 6: HTTPS is enforced except on loopback.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { CertificateServiceClient } from '@certificate-service/sdk';
import type { Sandbox } from '@certificate-service/sandbox';
import { until } from '../../support/until';
import { startPackageStack, type N8nInstance, type PackageStack, type WorkflowJson } from './harness';
import { PACKAGE_DIR } from './package-setup';

jest.setTimeout(120_000);

const EXAMPLES = path.join(PACKAGE_DIR, 'examples');
const PACKAGE_PREFIX = 'n8n-nodes-certificate-service.';

type Node = Record<string, any> & { name: string; type: string; parameters: Record<string, any> };

describe('n8n/examples in a real n8n 2.41.1', () => {
	let stack: PackageStack | undefined;
	let sb: Sandbox | undefined;
	let n8n: N8nInstance | undefined;
	let slack: Server | undefined;
	const slackMessages: Array<{ text?: string }> = [];
	let slackUrl = '';
	let core: CertificateServiceClient;
	let credential: { id: string; name: string };
	let batchId = '';

	/** An example as shipped, made ready the way a user would after importing it. */
	function prepared(file: string): WorkflowJson {
		const json = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8')) as WorkflowJson & { nodes: Node[] };
		for (const node of json.nodes) {
			if (node.type.startsWith(PACKAGE_PREFIX)) {
				// the package loads as a custom extension here, so its types are CUSTOM.<name>
				node.type = `CUSTOM.${node.type.slice(PACKAGE_PREFIX.length)}`;
				node.credentials = { certificateServiceApi: credential };
				const batch = node.parameters.batch;
				if (batch?.mode === 'list' && batch.value === '') node.parameters.batch = { __rl: true, mode: 'id', value: batchId };
			}
			if (node.webhookId) node.webhookId = randomUUID();
			if (node.parameters.url?.startsWith('https://hooks.slack.com/')) node.parameters.url = slackUrl;
		}
		return json;
	}

	beforeAll(async () => {
		stack = await startPackageStack({ rateLimit: false, timeScale: 0.001, mailDelayMs: 5 });
		({ sb, n8n, core } = stack);
		batchId = (await core.createBatch({ title: 'Examples', designId: 'design_classic' })).id;
		slack = createServer((req, res) => {
			let body = '';
			req.on('data', (chunk) => (body += chunk));
			req.on('end', () => {
				slackMessages.push(JSON.parse(body));
				res.end('ok');
			});
		});
		await new Promise<void>((resolve) => slack!.listen(0, '127.0.0.1', resolve));
		slackUrl = `http://127.0.0.1:${(slack.address() as AddressInfo).port}/services/T0/B0/example`;
	}, 15 * 60_000);

	afterAll(async () => {
		try {
			await stack?.stop();
		} finally {
			await new Promise((resolve) => (slack ? slack.close(resolve) : resolve(undefined)));
		}
	}, 60_000);

	/** Saves a credential and runs n8n's credential test on it, as the editor's "Test" does. */
	async function savedAndTested(name: string, baseUrl: string, apiKey = sb!.apiKey) {
		const data = { apiKey, baseUrl };
		const created = await n8n!.createCredential('certificateServiceApi', name, data);
		const result = await n8n!.rest('POST', '/credentials/test', {
			credentials: { id: created.id, name, type: 'certificateServiceApi', data },
		});
		return { id: created.id as string, result };
	}

	it("n8n's credential test applies the nodes' HTTPS rule: http:// only on loopback", async () => {
		const before = sb!.controls.counters().requests.byRoute['POST /auth'] ?? 0;
		// loopback http (the sandbox), given as a bare origin: normalised like the nodes do it
		const ok = await savedAndTested('Certificate Service (sandbox)', `${sb!.url}/`);
		expect(ok.result).toEqual(expect.objectContaining({ status: 'OK' }));
		expect(sb!.controls.counters().requests.byRoute['POST /auth']).toBe(before + 1);
		credential = { id: ok.id, name: 'Certificate Service (sandbox)' };

		const bad = await savedAndTested('Certificate Service (clear text)', 'http://certificates.example.com/api/v1');
		expect(bad.result).toEqual({ status: 'Error', message: expect.stringMatching(/"baseUrl".*must use https:\/\//) });
		expect(JSON.stringify(bad.result)).not.toContain(sb!.apiKey);
	});

	it("a refused test says what to do (the credential's rules), not just n8n's status text", async () => {
		const wrongKey = 'sk_live_not_a_key_of_this_workspace_77';
		const refused = await savedAndTested('Certificate Service (wrong key)', `${sb!.url}/api/v1`, wrongKey);
		expect(refused.result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The service does not recognize the API key\. Copy the whole key again, or make a new one under Settings → API keys/),
		});
		const elsewhere = await savedAndTested('Certificate Service (wrong path)', `${sb!.url}/not-the-api/api/v1`);
		expect(elsewhere.result).toEqual({ status: 'Error', message: expect.stringMatching(/^No Certificate Service API answered at this Base URL/) });
		for (const r of [refused, elsewhere]) expect(JSON.stringify(r.result)).not.toMatch(/sk_live_/);
	});

	/** Runs a saved workflow; on failure, says why. */
	async function run(id: string) {
		const result = await n8n!.runWorkflow(id);
		if (result.status !== 'success') {
			throw new Error(`${result.status}: ${result.error}\n${JSON.stringify(result.execution?.data?.resultData?.error ?? {}).slice(0, 1500)}`);
		}
		return result;
	}

	it('issue-from-spreadsheet.json issues one certificate per row', async () => {
		const wf = await n8n!.createWorkflow(prepared('issue-from-spreadsheet.json'));
		const issued = (await run(wf.id)).outputOf('Issue Certificate');
		expect(issued.map((r) => [r.name, r.email, r.data])).toEqual([
			['Ada Lovelace', 'ada@example.com', { course: 'Analytical Engines' }],
			['Alan Turing', 'alan@example.com', { course: 'Computability' }],
			['Grace Hopper', 'grace@example.com', { course: 'Compilers' }],
		]);
		const inBatch = await core.listRecipients(batchId);
		expect(inBatch.items.map((r) => r.email).sort()).toEqual(['ada@example.com', 'alan@example.com', 'grace@example.com']);
	});

	it('find-or-issue.json finds the existing certificate, and issues one for a new email', async () => {
		// Ada was issued above: found, nothing issued.
		const json = prepared('find-or-issue.json');
		const wf = await n8n!.createWorkflow(json);
		const first = await run(wf.id);
		expect(first.outputOf('Existing Certificate')).toEqual([expect.objectContaining({ email: 'ada@example.com', batchId })]);
		expect(first.execution.data.resultData.runData['Issue Certificate']).toBeUndefined();

		// A new person: Find by Email has no match, "Always Output Data" carries on, Issue runs.
		const person = (json.nodes as Node[]).find((n) => n.name === 'Person')!;
		person.parameters.assignments.assignments[1].value = 'NEW.Person@Example.com';
		person.parameters.assignments.assignments[0].value = 'New Person';
		const wf2 = await n8n!.createWorkflow({ ...json, name: `${json.name} (new person)` });
		const second = await run(wf2.id);
		expect(second.outputOf('Existing Certificate')).toEqual([]);
		expect(second.outputOf('Issue Certificate')).toEqual([
			expect.objectContaining({ name: 'New Person', email: expect.stringMatching(/^new\.person@example\.com$/i), batchId, data: { course: 'Analytical Engines' } }),
		]);
		// and the next run finds it, whatever the case of the email
		const third = await run(wf2.id);
		expect(third.outputOf('Existing Certificate')).toEqual([expect.objectContaining({ name: 'New Person', batchId })]);
		expect(third.execution.data.resultData.runData['Issue Certificate']).toBeUndefined();
	});

	it('certificate-issued-to-slack.json, published, posts a Slack message for a signed delivery', async () => {
		const wf = await n8n!.createWorkflow(prepared('certificate-issued-to-slack.json'));
		await n8n!.publish(wf.id);
		const subscription = sb!.controls.subscriptions().find((s) => s.url.includes('/webhook/'));
		expect([...(subscription?.events ?? [])]).toEqual(['certificate.issued']);

		const recipient = await core.issueCertificate(batchId, { name: 'Slack Person', email: 'slack@example.com', data: { course: 'Chat' } });
		// the sandbox signs and delivers certificate.issued to n8n's production URL
		await sb!.controls.waitForDeliveries((log) => log.some((d) => d.type === 'certificate.issued' && d.outcome === 'succeeded'), 10_000);
		await until('the workflow\'s Slack message', () => slackMessages.length > 0, 15_000, 100);
		expect(slackMessages).toEqual([
			{ text: `Certificate ${recipient.certificateId} was issued to Slack Person (slack@example.com): ${recipient.certUrl}` },
		]);
		await n8n!.unpublish(wf.id);
		expect(sb!.controls.subscriptions().filter((s) => s.url.includes('/webhook/'))).toEqual([]);
	});
});
