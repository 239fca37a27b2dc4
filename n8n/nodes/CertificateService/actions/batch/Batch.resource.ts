import type { INodeProperties } from 'n8n-workflow';

import { resourceOperations } from '../resource';

import * as archive from './archive.operation';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as unarchive from './unarchive.operation';

const batch = resourceOperations({ archive, create, get, getMany, unarchive });

/** Each operation's `execute`, for the router. */
export const operations = batch.operations;

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['batch'] } },
		options: [
			{
				name: 'Archive',
				value: 'archive',
				description: 'Archive a batch',
				action: 'Archive batch',
			},
			{
				name: 'Create',
				value: 'create',
				description: 'Create a batch of certificates with a design',
				action: 'Create batch',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a batch',
				action: 'Get batch',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List batches',
				action: 'Get many batches',
			},
			{
				name: 'Unarchive',
				value: 'unarchive',
				description: 'Restore an archived batch',
				action: 'Unarchive batch',
			},
		],
		default: 'getMany',
	},
	...batch.properties,
];
