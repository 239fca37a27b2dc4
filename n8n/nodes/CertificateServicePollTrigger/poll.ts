import type { IPollFunctions } from 'n8n-workflow';

import { checkPollSettings, polledEvent } from '@certificate-service/sdk/core';
import type { FlatEvent, PollEvent, PollState } from '@certificate-service/sdk/core';
import { withClient } from '../shared/client';

/**
 * How many of the newest certificates a manual run (Fetch Test Event / Execute step) shows,
 * so the user sees the data shape. A manual run neither reads nor moves the saved position.
 */
export const MANUAL_SAMPLE = 3;

/**
 * The node's static data, JSON as the core made it. n8n (2.41.1) keeps it in memory between
 * polls and saves it with the workflow when a poll emits, and after activation (which runs the
 * first poll). A poll that emits nothing may still move the position (a walk the budget cut
 * short resumes at the next poll); that is kept in memory only, so after a restart the next
 * poll reads that stretch again: it emitted nothing, so nothing is emitted twice.
 * - `watching`: what the position belongs to (event, batch or all); another setting starts over;
 * - `state`: one batch's position (the core's PollState);
 * - `states`: the position of each active batch.
 */
interface Saved {
	watching?: string;
	state?: PollState;
	states?: Record<string, PollState>;
}

/** The node's fields by the core's names, for the core's errors. */
const FIELD_NAMES = { batchId: 'Batch' };

/** The node's settings, checked by the core (before any request), which names the node's field. */
function readSettings(context: IPollFunctions): { event: PollEvent; batchId?: string } {
	const event = context.getNodeParameter('event', 'issued') as PollEvent;
	const batch = () => String(context.getNodeParameter('batch', '', { extractValue: true }) ?? '');
	const watchesAll = context.getNodeParameter('watch', 'batch') === 'allActive';
	return checkPollSettings(watchesAll ? { event } : { event, batchId: batch() }, FIELD_NAMES);
}

/**
 * One poll: the new certificates, newest first, in the instant trigger's flat shape. The first
 * poll (after activation, or after the event or batch changed) emits nothing and only saves the
 * position; after that each certificate (issued) and each send (sent/failed, within the core's
 * window) is emitted once, across polls and restarts. What the core noticed on the way (a
 * refused cursor, a shifted list, a walk the budget cut short) goes to n8n's log.
 */
export async function pollOnce(context: IPollFunctions): Promise<FlatEvent[]> {
	const node = context.getNode();
	return await withClient(context, async (client) => {
		const { event, batchId } = readSettings(context);
		if (context.getMode() === 'manual') {
			const sample = batchId
				? await client.pollCertificates({ batchId, event, firstPoll: MANUAL_SAMPLE })
				: await client.pollActiveBatches({ event, firstPoll: MANUAL_SAMPLE });
			return sample.certificates.map((r) => polledEvent(event, r));
		}
		const saved: Saved = context.getWorkflowStaticData('node');
		const watching = `${event}:${batchId ?? '*'}`;
		const same = saved.watching === watching;
		const result = batchId
			? await client.pollCertificates({ batchId, event, state: same ? saved.state : undefined })
			: await client.pollActiveBatches({ event, states: same ? saved.states : undefined });
		for (const note of result.notes) context.logger.warn(`${node.name}: ${note}`);
		if ('state' in result) {
			saved.state = result.state;
			delete saved.states;
		} else {
			saved.states = result.states;
			delete saved.state;
		}
		saved.watching = watching;
		return result.certificates.map((r) => polledEvent(event, r));
	});
}
