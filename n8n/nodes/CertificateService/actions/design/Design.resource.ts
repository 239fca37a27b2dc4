import type { INodeProperties } from 'n8n-workflow';

import { resourceOperations } from '../resource';

import * as getMany from './getMany.operation';

const design = resourceOperations({ getMany });

/** Each operation's `execute`, for the router. */
export const operations = design.operations;

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
	...design.properties,
];
