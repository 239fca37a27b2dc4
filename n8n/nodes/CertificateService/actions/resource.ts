import type { INodeProperties } from 'n8n-workflow';

import type { OperationExecute } from '../helpers/items';

/** An operation file: its parameters (shown for its resource and operation) and its `execute`. */
export interface OperationModule {
	description: INodeProperties[];
	execute: OperationExecute;
}

/**
 * A resource's operations, listed once: each one's `execute` by operation value (for the
 * router) and their parameters in the order listed (for the node's description). The resource's
 * own "Operation" parameter stays an object literal in its file: n8n's lint checks an operation
 * parameter only where its options are written out (eslint-plugin-n8n-nodes-base 1.16,
 * ast/getters/nodeParameter.getters.js, `hasPropertyPointingToIdentifier`: a missing `action`
 * in options built by a function passes the lint unseen).
 */
export function resourceOperations<T extends Record<string, OperationModule>>(
	modules: T,
): { operations: { [K in keyof T]: OperationExecute }; properties: INodeProperties[] } {
	const entries = Object.entries(modules);
	return {
		operations: Object.fromEntries(entries.map(([value, m]) => [value, m.execute])) as { [K in keyof T]: OperationExecute },
		properties: entries.flatMap(([, m]) => m.description),
	};
}
