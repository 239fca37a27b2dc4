import type { INodeProperties } from 'n8n-workflow';

import { resourceOperations } from '../resource';

import * as verify from './verify.operation';

const delivery = resourceOperations({ verify });

/** Each operation's `execute`, for the router. */
export const operations = delivery.operations;

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['delivery'] } },
		options: [
			{
				name: 'Verify',
				value: 'verify',
				description: 'Check the signature of a delivery received by a Webhook node, and drop duplicates',
				action: 'Verify a delivery',
			},
		],
		default: 'verify',
	},
	...delivery.properties,
];
