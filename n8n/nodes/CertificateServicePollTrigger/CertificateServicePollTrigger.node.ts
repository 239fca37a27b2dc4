import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { batchLocator } from '../shared/batch-locator';
import * as listSearch from '../shared/listSearch';
import { pollOnce } from './poll';

export class CertificateServicePollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Certificate Service Poll Trigger',
		name: 'certificateServicePollTrigger',
		icon: {
			light: 'file:../../icons/certificateService.svg',
			dark: 'file:../../icons/certificateService.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["event"]}}',
		description:
			'Starts the workflow on new certificates by checking on a schedule, with no webhook subscription',
		defaults: { name: 'Certificate Service Poll Trigger' },
		// n8n adds the "Poll Times" parameter and calls poll() on that schedule.
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'certificateServiceApi', required: true }],
		properties: [
			{
				displayName:
					'Checks the service on the schedule below and needs no public URL or webhook subscription. The first check after activation only notes where each list ends: certificates issued before it do not start the workflow.',
				name: 'pollNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				default: 'issued',
				options: [
					{
						name: 'Certificate Issued',
						value: 'issued',
						description: 'A certificate was issued (API, bulk, CSV import or web app)',
					},
					{
						name: 'Certificate Email Sent',
						value: 'sent',
						description: 'The certificate email was handed to the mail provider',
					},
					{
						name: 'Certificate Email Failed',
						value: 'failed',
						description: 'The mail provider rejected the certificate email',
					},
				],
			},
			{
				displayName: 'Watch',
				name: 'watch',
				type: 'options',
				default: 'batch',
				options: [
					{
						name: 'One Batch',
						value: 'batch',
						description: 'Check one batch: one request per check while little is new, 10 at most',
					},
					{
						name: 'All Active Batches',
						value: 'allActive',
						description:
							'Check every active batch: one request per batch per check while little is new (10 at most), within the 120 per minute of the API key',
					},
				],
			},
			batchLocator({ description: 'The batch whose certificates start the workflow', displayOptions: { show: { watch: ['batch'] } } }),
		],
	};

	methods = { listSearch };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const items = await pollOnce(this);
		return items.length > 0 ? [this.helpers.returnJsonArray(items as unknown as IDataObject[])] : null;
	}
}
