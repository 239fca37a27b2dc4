/**
 * The Certificate Service Poll Trigger in a REAL n8n 2.41.1 against the sandbox, on n8n's own
 * schedule (Poll Times: every minute, n8n's shortest): a manual run shows the newest
 * certificates; publishing runs the first poll, which emits nothing; 3 issued certificates
 * come out once; 2 issued around a restart of n8n come out once (the position is in the
 * node's static data, which n8n saves with the workflow); 1 more after the restart comes out
 * once. n8n runs one execution per poll with every new certificate as an item, so the count
 * that must hold is the items: 3, then 2, then 1, each id once, 6 in all.
 * Takes 3-5 minutes: each step waits for n8n's next poll.
 */
import { randomUUID } from 'node:crypto';
import type { CertificateServiceClient } from '@certificate-service/sdk';
import type { Sandbox } from '@certificate-service/sandbox';
import { hasEnded } from '../../support/deliver';
import { until } from '../../support/until';
import { startPackageStack, type N8nInstance, type PackageStack } from './harness';

const POLL = 'CUSTOM.certificateServicePollTrigger';
const LIST_ROUTE = 'GET /batches/:id/recipients';
/** n8n polls at the start of each minute; a step waits for up to two polls. */
const POLL_WAIT_MS = 130_000;

jest.setTimeout(10 * 60_000);

describe('Certificate Service Poll Trigger in a real n8n 2.41.1', () => {
	let stack: PackageStack;
	let sb: Sandbox;
	let n8n: N8nInstance;
	let core: CertificateServiceClient;
	let batchId = '';
	let workflowId = '';
	let credential: { id: string; name: string };
	const seenExecutions = new Set<string>();
	const emitted: string[] = [];

	const triggerItems = (execution: any): Record<string, unknown>[] =>
		(execution.data?.resultData?.runData?.['Poll']?.[0]?.data?.main?.[0] ?? []).map((i: any) => i.json);

	/** Waits until the new executions hold `count` items in all; returns those items (newest first per execution). */
	async function waitForItems(count: number, timeoutMs = POLL_WAIT_MS): Promise<Record<string, unknown>[]> {
		const items: Record<string, unknown>[] = [];
		await until(`${count} new item(s) from the poll trigger`, async () => {
			const all = await n8n.executions(workflowId);
			const fresh = all.filter((e: any) => !seenExecutions.has(String(e.id)) && hasEnded(e));
			for (const e of fresh.reverse()) {
				expect(e.status).toBe('success');
				seenExecutions.add(String(e.id));
				items.push(...triggerItems(e));
			}
			return items.length >= count;
		}, timeoutMs, 500).catch((e: Error) => {
			throw new Error(`${e.message}: saw ${items.length}\n${n8n.logs().slice(-3000)}`);
		});
		emitted.push(...items.map((i) => String(i.recipientId)));
		return items;
	}

	async function issue(n: number, tag: string): Promise<string[]> {
		const ids: string[] = [];
		for (let i = 0; i < n; i++) ids.push((await core.issueCertificate(batchId, { name: `${tag} ${i}`, email: `${tag}${i}@example.com` })).id);
		return ids;
	}

	beforeAll(async () => {
		stack = await startPackageStack({ rateLimit: false });
		({ sb, n8n, core } = stack);
		credential = await stack.credential();
		batchId = (await core.createBatch({ title: 'Poll e2e', designId: 'design_classic' })).id;
	}, 15 * 60_000);

	afterAll(() => stack?.stop(), 60_000);

	it("a manual run (n8n's test path) shows the newest certificates and saves no position", async () => {
		const before = await issue(4, 'before');
		const wf = await n8n.createWorkflow({
			name: 'e2e: poll trigger',
			nodes: [
				{
					id: randomUUID(),
					name: 'Poll',
					type: POLL,
					typeVersion: 1,
					position: [0, 0],
					parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, event: 'issued', watch: 'batch', batch: { __rl: true, mode: 'id', value: batchId } },
					credentials: { certificateServiceApi: credential },
				},
				{ id: randomUUID(), name: 'Done', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [200, 0], parameters: {} },
			],
			connections: { Poll: { main: [[{ node: 'Done', type: 'main', index: 0 }]] } },
		});
		workflowId = wf.id;
		const run = await n8n.runWorkflow(workflowId, { triggerNode: 'Poll' });
		expect(run.status).toBe('success');
		expect(run.outputOf('Poll').map((i) => i.recipientId)).toEqual(before.slice(-3).reverse());
		const saved = await n8n.api('GET', `/workflows/${workflowId}`);
		expect(JSON.stringify(saved.staticData ?? {})).not.toContain('watching');
		for (const e of await n8n.executions(workflowId)) seenExecutions.add(String(e.id));
	});

	it('publishing runs the first poll: nothing is emitted, the position is saved', async () => {
		const listsBefore = sb.controls.counters().requests.byRoute[LIST_ROUTE] ?? 0;
		await n8n.publish(workflowId);
		// The first poll runs during activation; n8n saves the static data right after it.
		const saved = await n8n.api('GET', `/workflows/${workflowId}`);
		expect(saved.staticData?.['node:Poll']).toMatchObject({ watching: `issued:${batchId}`, state: { v: 2, floor: expect.any(Number) } });
		expect((sb.controls.counters().requests.byRoute[LIST_ROUTE] ?? 0) - listsBefore).toBe(1);
		const fresh = (await n8n.executions(workflowId)).filter((e: any) => !seenExecutions.has(String(e.id)));
		expect(fresh).toEqual([]);
	});

	it('3 issued → 3 items, newest first, in one execution of the next poll', async () => {
		const three = await issue(3, 'three');
		const items = await waitForItems(3);
		expect(items.map((i) => i.recipientId)).toEqual([...three].reverse());
		expect(items[0]).toMatchObject({ type: 'certificate.issued', batchId, id: three[2] });
	});

	it('2 issued, n8n restarted → 2 items (not 5): the position survived the restart', async () => {
		const two = await issue(2, 'two');
		await n8n.restart();
		const items = await waitForItems(2);
		expect(items.map((i) => i.recipientId).sort()).toEqual([...two].sort());
	});

	it('1 issued after the restart → 1 item; every certificate was emitted exactly once', async () => {
		const [one] = await issue(1, 'one');
		const items = await waitForItems(1);
		expect(items.map((i) => i.recipientId)).toEqual([one]);
		// One more poll with nothing new: no execution.
		await new Promise((r) => setTimeout(r, 65_000));
		const fresh = (await n8n.executions(workflowId)).filter((e: any) => !seenExecutions.has(String(e.id)));
		expect(fresh.flatMap(triggerItems)).toEqual([]);
		expect(emitted).toHaveLength(6);
		expect(new Set(emitted).size).toBe(6);
	});
});
