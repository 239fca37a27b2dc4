import type { INodeProperties } from 'n8n-workflow';

import * as verify from './verify.operation';

export { verify };

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
	...verify.description,
];
