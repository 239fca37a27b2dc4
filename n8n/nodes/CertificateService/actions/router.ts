import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CertificateServiceClient } from '@certificate-service/sdk/core';
import { toNodeError } from '../helpers/errors';
import { getClient } from '../transport';
import * as batch from './batch/Batch.resource';
import * as certificate from './certificate/Certificate.resource';
import * as delivery from './delivery/Delivery.resource';
import * as design from './design/Design.resource';

type Operation = {
	execute: (
		this: IExecuteFunctions,
		client: CertificateServiceClient,
	) => Promise<INodeExecutionData[]>;
};

const resources: Record<string, Record<string, Operation | unknown>> = {
	batch,
	certificate,
	delivery,
	design,
};

/** Dispatches resource → operation; each operation file runs the items itself. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = resources[resource]?.[operation] as Operation | undefined;
	if (!handler || typeof handler.execute !== 'function') {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of resource "${resource}" is not supported`,
		);
	}

	let client: CertificateServiceClient;
	try {
		client = await getClient(this);
	} catch (error) {
		throw toNodeError(this.getNode(), error);
	}
	return [await handler.execute.call(this, client)];
}
