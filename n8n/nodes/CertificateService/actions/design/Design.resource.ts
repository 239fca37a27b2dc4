import type { INodeProperties } from 'n8n-workflow';

import type { OperationExecute } from '../../helpers/items';

import * as getMany from './getMany.operation';

export { getMany };

/** Each operation's `execute`, for the router. */
export const operations = {
	getMany: getMany.execute,
} satisfies Record<string, OperationExecute>;

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
