import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { acceptOnly, assertNever, flattenEvent, handleDelivery, PENDING_RETRY_AFTER_SECONDS } from '@certificate-service/sdk/core';
import type { HeaderBag } from '@certificate-service/sdk/core';
import { batchLocator } from '../shared/batch-locator';
import * as listSearch from '../shared/listSearch';
import { triggerStore, whenAnswered } from './deliveries';
import { createSubscription, deleteSubscription, subscriptionExists } from './subscription';

export class CertificateServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Certificate Service Trigger',
		name: 'certificateServiceTrigger',
		icon: {
			light: 'file:../../icons/certificateService.svg',
			dark: 'file:../../icons/certificateService.dark.svg',
		},
		group: ['trigger'],
		// 2: the same node, but n8n 2.41.1 evaluates no expression for it in the webhook phase
		// (webhooks/webhook-helpers.js parseRequestBody reads $parameter.options.binaryData in
		// the expression VM for every typeVersion 1 start node). Workflows saved with 1 keep it.
		version: [1, 2],
		defaultVersion: 2,
		subtitle: '={{$parameter["events"].join(", ")}}',
		description: 'Starts the workflow when certificates are issued, emailed or viewed',
		defaults: { name: 'Certificate Service Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'certificateServiceApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// n8n 2.41.1 answers an execution it started with the evaluated responseData, which
				// defaults to the text "firstEntryJson" (webhooks/webhook-helpers.js,
				// evaluateResponseOptions); the empty string makes it answer webhook()'s
				// webhookResponse instead (webhook-on-received-response-extractor.js).
				responseData: '',
				path: 'webhook',
			},
		],
		properties: [
			{
				// Static: the editor cannot read n8n's webhook URL in displayOptions (issue 12, item 6).
				displayName:
					'The service delivers events only to https:// webhook URLs (http:// only to localhost). If the webhook URLs above start with http://, set WEBHOOK_URL to n8n\'s public https:// address, or activation fails.',
				name: 'httpsNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: ['certificate.issued'],
				description: 'The events to listen to',
				options: [
					{
						name: 'Certificate Failed',
						value: 'certificate.failed',
						description: 'The mail provider rejected the certificate email',
					},
					{
						name: 'Certificate Sent',
						value: 'certificate.sent',
						description: 'The certificate email was handed to the mail provider',
					},
					{
						name: 'Certificate Issued',
						value: 'certificate.issued',
						description: 'A certificate was issued (API, bulk, CSV import or web app)',
					},
					{
						name: 'Certificate Viewed',
						value: 'certificate.viewed',
						description: 'A recipient opened the certificate for the first time',
					},
				],
			},
			batchLocator({ description: 'Only start for certificates of this batch. Leave empty for all batches.', required: false, any: 'Any batch' }),
		],
	};

	methods = { listSearch };

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await subscriptionExists(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await createSubscription(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteSubscription(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const state = this.getWorkflowStaticData('node');
		const nodeKey = `${this.getWorkflow().id ?? ''}:${this.getNode().id ?? this.getNode().name}`;
		// The core's one pipeline: signature over the raw bytes with the secret stored at
		// subscription (300 s window), then the filters, then the delivery id (at-least-once).
		const result = await handleDelivery(this.getRequestObject().rawBody, this.getHeaderData() as HeaderBag, {
			secrets: state.secret as string,
			accept: acceptOnly({
				events: this.getNodeParameter('events', []) as string[],
				batchId: String(this.getNodeParameter('batch', '', { extractValue: true }) ?? '').trim(),
			}),
			store: triggerStore(nodeKey, state),
		});
		switch (result.outcome) {
			case 'rejected':
				this.logger.warn(`Certificate Service Trigger rejected a delivery: ${result.message}`);
				this.getResponseObject().status(401).json({ error: result.reason, message: result.message });
				return { noWebhookResponse: true };
			// Answered 200 so the service does not retry (it would, 7 times), but nothing runs.
			case 'notCertificate':
				this.logger.warn(
					`Certificate Service Trigger: delivery ${result.deliveryId} (${result.envelope.type}) is not a certificate event (${result.why}); answered 200, nothing runs. The service's test delivery may look like this.`,
				);
				return { webhookResponse: { received: true, notCertificate: true, ignored: result.why } };
			case 'filtered':
				return { webhookResponse: { received: true, ignored: result.why } };
			case 'duplicate':
				return { webhookResponse: { received: true, duplicate: true } };
			// Another attempt of this delivery is still being handled: its outcome decides. 503, never
			// 410 (which unsubscribes); the service tries again later.
			case 'pending':
				this.getResponseObject()
					.status(503)
					.set('Retry-After', String(PENDING_RETRY_AFTER_SECONDS))
					.json({ error: 'DELIVERY_PENDING', message: 'Another attempt of this delivery is still being handled; try again later.' });
				return { noWebhookResponse: true };
			case 'accepted': {
				// The id stays pending until n8n has stored and started (or enqueued) the execution
				// and answered: done on a 2xx, free again otherwise, so the service's retry runs it.
				const { deliveryId, settle } = result;
				whenAnswered(this.getResponseObject(), (status) => {
					const ok = status >= 200 && status < 300;
					if (!ok) this.logger.warn(`Certificate Service Trigger: n8n answered ${status} to delivery ${deliveryId}; the service will retry it, and the retry runs.`);
					void settle(ok);
				});
				// n8n sends this answer once it has stored and started (or enqueued) the execution.
				return {
					workflowData: [this.helpers.returnJsonArray([flattenEvent(result.event) as unknown as IDataObject])],
					webhookResponse: { received: true },
				};
			}
			default:
				return assertNever(result);
		}
	}
}
