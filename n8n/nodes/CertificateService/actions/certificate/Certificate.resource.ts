import type { INodeProperties } from 'n8n-workflow';

import * as deleteCertificate from './delete.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as issue from './issue.operation';
import * as send from './send.operation';
import * as update from './update.operation';

export { deleteCertificate as delete, get, getMany, issue, send, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['certificate'] } },
		options: [
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete an issued certificate (its recipient)',
				action: 'Delete a certificate',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get an issued certificate',
				action: 'Get a certificate',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List the certificates issued in a batch',
				action: 'Get many certificates',
			},
			{
				name: 'Issue',
				value: 'issue',
				description: 'Issue a certificate to a recipient (uses one quota unit)',
				action: 'Issue a certificate',
			},
			{
				name: 'Send',
				value: 'send',
				description: 'Email an issued certificate to its recipient',
				action: 'Send a certificate',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Change the recipient name, email or certificate variables',
				action: 'Update a certificate',
			},
		],
		default: 'issue',
	},
	...deleteCertificate.description,
	...get.description,
	...getMany.description,
	...issue.description,
	...send.description,
	...update.description,
];
