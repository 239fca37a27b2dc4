import { randomUUID } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { MEMORY_DELIVERIES } from './delivery-memory';

/**
 * n8n's deduplication store (`helpers.checkProcessedAndRecord`, what Remove Duplicates keeps across
 * executions) as Delivery → Verify uses it: one row per node in n8n's database (`processed_data`,
 * keyed by workflow id and `n:<node id>`), shared by every worker and kept across restarts. It is
 * the only store a community node reaches from every worker in n8n 2.41.1: static data is saved
 * whole after the execution, and data tables serve n8n's own nodes only
 * (modules/data-table/data-table-proxy.service.js, ALLOWED_NODES, line 24). n8n reads that row,
 * then writes it back whole, with no lock (deduplication/deduplication-helper.js:
 * checkProcessedAndRecord line 184 reads with findProcessedData, line 82; handleHashedItems
 * inserts the first row, line 147, and updates it after, line 181). Hence:
 * - One call at a time per node in this process: two at once would both miss each other's keys,
 *   and the later write would drop the earlier one's. Claims made meanwhile go together in the
 *   next call (one read and one write for all of them).
 * - The first write is an insert, which the table's primary key refuses to the second of two
 *   processes inserting at once: that call is made again and reads the row the other one
 *   inserted, so the unique key decides.
 * - Across processes, two claims of one key whose calls overlap would both be told "new". So a
 *   claim records the key with a token of its own, waits (claimTiming), and reads again: its token
 *   is gone only if another process's write (made from a read before ours) replaced our row.
 *   If that write holds the key, the other claim has it; if not, ours is recorded again. This is
 *   Fischer's timed mutual exclusion: it holds while each call's read and write are closer than
 *   that wait (docs/design/queue-mode.md: measured, and what remains).
 */
export type Recorded = 'new' | 'processed' | 'unknown';

/**
 * How long a claim waits before it reads again: longer than a call's read and write are apart
 * under load. A setting for tests only.
 */
export const claimTiming = { confirmMs: 500 };
/** Confirmations a claim makes before it gives up and is taken (at least once). */
const CONFIRMATIONS = 3;
/** A claim takes two entries in n8n's row (its key and its token): room for MEMORY_DELIVERIES claims. */
const ENTRIES = 2 * MEMORY_DELIVERIES;

/** One call to n8n's store: the keys it called new (it recorded them). */
type Check = (keys: string[]) => Promise<Set<string>>;

interface Waiting {
	keys: string[];
	check: Check;
	done: (fresh: Set<string> | undefined) => void;
}

/** Per node key, the calls waiting for the next one; a node is listed while a call is under way. */
const writers = new Map<string, Waiting[]>();

/**
 * Records `key` in n8n's deduplication store of the node running `context`: `new` when this claim
 * holds it, `processed` when another execution's does, `unknown` when the store failed (the caller
 * decides: Verify takes the delivery, since the Webhook node has already answered).
 */
export async function recordClaim(context: IExecuteFunctions, nodeKey: string, key: string): Promise<Recorded> {
	const check: Check = async (keys) => {
		const { new: fresh } = await context.helpers.checkProcessedAndRecord(keys, 'node', { mode: 'entries', maxEntries: ENTRIES });
		return new Set(fresh.map(String));
	};
	const token = `${key}#${randomUUID()}`;
	const first = await call(nodeKey, check, [key, token]);
	if (!first) return 'unknown';
	if (!first.has(key)) return 'processed';
	for (let i = 0; i < CONFIRMATIONS; i++) {
		await sleep(claimTiming.confirmMs);
		const again = await call(nodeKey, check, [token, key]);
		if (!again) return 'unknown';
		if (!again.has(token)) return 'new'; // our write stands
		if (!again.has(key)) return 'processed'; // a write holding the key replaced ours: that claim has it
		// A write for other keys replaced ours; this call recorded both again.
	}
	return 'unknown';
}

/** Queues one call for the node; the calls queued meanwhile are made as one. */
function call(nodeKey: string, check: Check, keys: string[]): Promise<Set<string> | undefined> {
	return new Promise((done) => {
		const waiting = writers.get(nodeKey);
		if (waiting) waiting.push({ keys, check, done });
		else {
			writers.set(nodeKey, [{ keys, check, done }]);
			void drain(nodeKey);
		}
	});
}

async function drain(nodeKey: string): Promise<void> {
	for (;;) {
		const batch = writers.get(nodeKey)!.splice(0);
		if (batch.length === 0) {
			writers.delete(nodeKey);
			return;
		}
		// The first call's execution waits for it, so its context is still live.
		const fresh = await checkTwice(batch[0].check, [...new Set(batch.flatMap((w) => w.keys))]);
		for (const w of batch) w.done(fresh && new Set(w.keys.filter((k) => fresh.has(k))));
	}
}

/** Postgres's and SQLite's words for a unique key that refused an insert. */
const UNIQUE_KEY_REFUSED = /duplicate key|unique constraint/i;

async function checkTwice(check: Check, keys: string[]): Promise<Set<string> | undefined> {
	try {
		return await check(keys);
	} catch (error) {
		// Two processes inserting the first row at once: the unique key refused this one, which
		// wrote nothing, and the row is there now. Read again, so the other's keys are seen. Any
		// other error may come after the write, when a second call would find these keys and call
		// them processed (a delivery nobody ran): unknown.
		if (!UNIQUE_KEY_REFUSED.test(String((error as Error)?.message))) return undefined;
		try {
			return await check(keys);
		} catch {
			return undefined;
		}
	}
}
