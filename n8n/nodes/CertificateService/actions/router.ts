import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { withClient } from '../../shared/client';
import type { OperationExecute } from '../helpers/items';
import * as batch from './batch/Batch.resource';
import * as certificate from './certificate/Certificate.resource';
import * as delivery from './delivery/Delivery.resource';
import * as design from './design/Design.resource';

/** resource → operation → its `execute`; `satisfies` checks every entry without widening the map. */
const operations = {
	batch: batch.operations,
	certificate: certificate.operations,
	delivery: delivery.operations,
	design: design.operations,
} satisfies Record<string, Record<string, OperationExecute>>;

/** The operation's `execute`, or undefined for a resource or operation the node does not have. */
function find(resource: string, operation: string): OperationExecute | undefined {
	if (!Object.hasOwn(operations, resource)) return undefined;
	const ofResource: Record<string, OperationExecute> = operations[resource as keyof typeof operations];
	return Object.hasOwn(ofResource, operation) ? ofResource[operation] : undefined;
}

/** Dispatches resource → operation; each operation file runs the items itself. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const execute = find(resource, operation);
	if (!execute) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of resource "${resource}" is not supported`,
		);
	}

	return [await withClient(this, execute)];
}
