// Response bodies shaped like the spec's resources (section 2).
import nock from 'nock';
import { recipientFixture } from '../support/recipient';
import { API_PATH, ORIGIN } from '../support/service';

export const BASE = ORIGIN;
export const API = API_PATH;

export function recipient(n: number, overrides: Record<string, unknown> = {}) {
	return recipientFixture(n, overrides, BASE);
}

export function batch(id: string, overrides: Record<string, unknown> = {}) {
	return { id, title: `Batch ${id}`, designId: 'design_classic', status: 'active', ...overrides };
}

export function apiError(error: string, message: string, detail: Record<string, unknown> = {}) {
	return { error, message, detail };
}

/**
 * The design check's two reads (on by default in Issue, issue 33): GET the batch, then GET
 * /designs, where its design lists no variables (so nothing is required). For the tests of
 * other mechanics; test/n8n/issue-design-check.test.ts tests the check itself.
 */
export function nockDesignReads(batchIds: string[] = ['batch_1'], design: Record<string, unknown> = { id: 'design_classic', name: 'Classic' }): void {
	for (const id of batchIds) nock(BASE).get(`${API}/batches/${id}`).reply(200, batch(id, { designId: design.id }));
	nock(BASE).get(`${API}/designs`).times(batchIds.length).reply(200, { data: [design], nextCursor: null });
}
