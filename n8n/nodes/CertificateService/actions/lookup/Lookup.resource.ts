import type { INodeProperties } from 'n8n-workflow';

import * as byCertificateId from './byCertificateId.operation';
import * as byShareToken from './byShareToken.operation';

export { byCertificateId, byShareToken };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['lookup'] } },
		options: [
			{
				name: 'By Certificate ID',
				value: 'byCertificateId',
				description: 'Find a certificate by its human-readable ID (CERT-…)',
				action: 'Look up a certificate by ID',
			},
			{
				name: 'By Share Token',
				value: 'byShareToken',
				description: 'Find a certificate by its public share token',
				action: 'Look up a certificate by share token',
			},
		],
		default: 'byCertificateId',
	},
	...byCertificateId.description,
	...byShareToken.description,
];
