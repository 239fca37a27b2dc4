import type { INodeType, INodeTypeDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

/**
 * P3's floor: the least any community trigger can do in n8n 2.41.1. Its webhook() returns the
 * request's body as one item and nothing else: no signature check, no claim, no static data.
 * n8n treats it as it treats ours (a start node that is not its own Webhook node waits for the
 * expression isolate in the webhook phase: live-webhooks.js, webhookPhaseNeedsIsolate), so what
 * ours costs beyond it is our own work. Bench only: package.ts puts it into a custom-extensions
 * folder of its own at bench time; it is never shipped.
 */
export class BenchFloorTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bench Floor Trigger',
		name: 'benchFloorTrigger',
		group: ['trigger'],
		// 2, as ours: n8n evaluates an expression per request for every version-1 start node
		// (webhook-helpers.js, parseRequestBody).
		version: 2,
		description: 'Benchmark only: starts the workflow with the request body',
		defaults: { name: 'Bench Floor Trigger' },
		inputs: [],
		outputs: ['main'],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [],
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return { workflowData: [this.helpers.returnJsonArray(this.getBodyData())] };
	}
}
