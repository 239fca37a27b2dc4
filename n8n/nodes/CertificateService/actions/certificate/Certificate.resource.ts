import type { INodeProperties } from 'n8n-workflow';

import { resourceOperations } from '../resource';

import * as deleteCertificate from './delete.operation';
import * as findByEmail from './findByEmail.operation';
import * as get from './get.operation';
import * as getByCertificateId from './getByCertificateId.operation';
import * as getByShareToken from './getByShareToken.operation';
import * as getMany from './getMany.operation';
import * as issue from './issue.operation';
import * as send from './send.operation';
import * as update from './update.operation';

const certificate = resourceOperations({
	delete: deleteCertificate,
	findByEmail,
	get,
	getByCertificateId,
	getByShareToken,
	getMany,
	issue,
	send,
	update,
});

/** Each operation's `execute`, for the router. */
export const operations = certificate.operations;

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
				description: 'Delete an issued certificate',
				action: 'Delete certificate',
			},
			{
				name: 'Find by Email',
				value: 'findByEmail',
				description: 'Find the certificates issued to an email address in a batch',
				action: 'Find certificate by email',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get an issued certificate of a batch',
				action: 'Get certificate',
			},
			{
				name: 'Get by Certificate ID',
				value: 'getByCertificateId',
				description: 'Get a certificate by its human-readable ID (CERT-…)',
				action: 'Get certificate by certificate ID',
			},
			{
				name: 'Get by Share Token or URL',
				value: 'getByShareToken',
				description: 'Get a certificate by its public share token or its certificate URL',
				action: 'Get certificate by share token or URL',
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
				description: 'Issue a certificate (uses one quota unit)',
				action: 'Issue certificate',
			},
			{
				name: 'Send',
				value: 'send',
				description: 'Email an issued certificate to its recipient',
				action: 'Send certificate',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Change the recipient name, email or certificate variables',
				action: 'Update certificate',
			},
		],
		default: 'issue',
	},
	...certificate.properties,
];
