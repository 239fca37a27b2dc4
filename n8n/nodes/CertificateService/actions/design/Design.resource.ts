import type { INodeProperties } from 'n8n-workflow';

import * as getMany from './getMany.operation';

export { getMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['design'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List the certificate designs of the workspace',
				action: 'Get many designs',
			},
		],
		default: 'getMany',
	},
	...getMany.description,
];
