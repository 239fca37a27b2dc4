import type { IExecuteFunctions, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as batch from './actions/batch/Batch.resource';
import * as certificate from './actions/certificate/Certificate.resource';
import * as delivery from './actions/delivery/Delivery.resource';
import * as design from './actions/design/Design.resource';
import { router } from './actions/router';
import { listSearch, resourceMapping } from './methods';

export class CertificateService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Certificate Service',
		name: 'certificateService',
		icon: {
			light: 'file:../../icons/certificateService.svg',
			dark: 'file:../../icons/certificateService.dark.svg',
		},
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Issue, send and find certificates with the Certificate Service',
		defaults: { name: 'Certificate Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'certificateServiceApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Batch', value: 'batch' },
					{ name: 'Certificate', value: 'certificate' },
					{ name: 'Delivery', value: 'delivery' },
					{ name: 'Design', value: 'design' },
				],
				default: 'certificate',
			},
			...batch.description,
			...certificate.description,
			...delivery.description,
			...design.description,
		],
	};

	methods = { listSearch, resourceMapping };

	async execute(this: IExecuteFunctions) {
		return await router.call(this);
	}
}
