import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CertificateServiceError, isNotFound, validateEvents } from '@certificate-service/sdk/core';
import type { CertificateServiceClient, EventType } from '@certificate-service/sdk/core';
import { withClient } from '../shared/client';

// The subscription lives in the node's static data: `subscriptionId`, the signing
// `secret` (shown once, at creation), the `webhookUrl` it points at, and the recent
// `deliveryIds` (see deliveries.ts).

function clearState(state: IDataObject): void {
	delete state.subscriptionId;
	delete state.secret;
	delete state.webhookUrl;
	delete state.deliveryIds;
}

function webhookUrl(context: IHookFunctions): string {
	return context.getNodeWebhookUrl('default') ?? '';
}

/** The events chosen, checked by the core (a bad value is refused before any request, naming the field). */
function selectedEvents(context: IHookFunctions): EventType[] {
	return validateEvents(context.getNodeParameter('events', []));
}

function sameEvents(a: unknown, b: EventType[]): boolean {
	if (!Array.isArray(a)) return false;
	const left = new Set(a);
	return left.size === new Set(b).size && b.every((e) => left.has(e));
}

/**
 * True when the stored subscription still exists with this node's URL and events.
 * A subscription the service no longer has (404) is forgotten. One with another URL or
 * other events is replaced in production; in a manual (test) run it is left alone,
 * because it may be the production subscription of the active workflow.
 * Without a stored id, a subscription the service has for this URL is adopted (see below).
 */
export async function subscriptionExists(context: IHookFunctions): Promise<boolean> {
	return await withClient(context, async (service) => {
		const state = context.getWorkflowStaticData('node');
		const subscriptionId = state.subscriptionId;
		if (typeof subscriptionId !== 'string' || !subscriptionId) return await adoptExisting(context, service);

		const subscription = await service.getSubscription(subscriptionId).catch((error: unknown) => {
			if (!isNotFound(error)) throw error;
			return undefined;
		});
		if (!subscription) {
			context.logger.debug(`Webhook subscription ${subscriptionId} no longer exists; it will be re-created.`);
			clearState(state);
			return await adoptExisting(context, service);
		}

		const matches =
			subscription.url === webhookUrl(context) &&
			sameEvents(subscription.events, selectedEvents(context)) &&
			typeof state.secret === 'string' &&
			state.secret !== '';
		if (matches) return true;

		if (context.getMode() !== 'manual') {
			await unsubscribe(context, service, subscriptionId);
			clearState(state);
		}
		return false;
	});
}

/**
 * Subscriptions the service has for this node's URL while static data knows none: the id was
 * lost (a restored or copied database, or n8n stopped between create() and saving static
 * data). Like n8n's GitHub trigger, which adopts the hook that already exists for its URL,
 * one with the same events is adopted: its secret was shown only at creation, so it is
 * rotated to learn a new one. The others for this URL are removed, so none is left orphaned.
 * The URL holds the node's webhook id, so no other node shares it.
 */
async function adoptExisting(context: IHookFunctions, service: CertificateServiceClient): Promise<boolean> {
	const url = webhookUrl(context);
	const events = selectedEvents(context);
	const state = context.getWorkflowStaticData('node');
	let adopted = false;
	for await (const subscription of service.iterateSubscriptions()) {
		if (subscription.url !== url) continue;
		if (!adopted && sameEvents(subscription.events, events)) {
			const { secret } = await service.rotateSubscriptionSecret(subscription.id);
			state.subscriptionId = subscription.id;
			state.secret = secret;
			state.webhookUrl = url;
			state.deliveryIds = [];
			adopted = true;
			context.logger.info(`Adopted the existing webhook subscription ${subscription.id} for ${url}.`);
		} else {
			await unsubscribe(context, service, subscription.id);
		}
	}
	return adopted;
}

/**
 * Subscribes this node's webhook URL and keeps the id and the signing secret (the core refuses,
 * and deletes again, a subscription created without one).
 */
export async function createSubscription(context: IHookFunctions): Promise<boolean> {
	return await withClient(context, async (service) => {
		const state = context.getWorkflowStaticData('node');
		const url = webhookUrl(context);
		const subscription = await service.createSubscription({ url, events: selectedEvents(context) }).catch((error: unknown) => {
			if (!(error instanceof CertificateServiceError && error.field === 'url')) throw error;
			throw new NodeOperationError(context.getNode(), `n8n's webhook URL ${url} cannot be subscribed`, {
				description: `${error.message}. The service delivers only to https:// URLs (http:// is accepted for localhost). Set n8n's WEBHOOK_URL to a public https:// address.`,
			});
		});
		state.subscriptionId = subscription.id;
		state.secret = subscription.secret;
		state.webhookUrl = url;
		state.deliveryIds = [];
		return true;
	});
}

/** Unsubscribes (a subscription already gone is fine) and forgets it. */
export async function deleteSubscription(context: IHookFunctions): Promise<boolean> {
	const state = context.getWorkflowStaticData('node');
	const subscriptionId = state.subscriptionId;
	if (typeof subscriptionId === 'string' && subscriptionId) {
		const removed = await withClient(context, async (service) => await unsubscribe(context, service, subscriptionId));
		if (!removed) return false; // state kept, so a later deactivation can try again
	}
	clearState(state);
	return true;
}

/** The core's unsubscribe (a 404 is already gone); true when it is gone, false after logging another failure. */
async function unsubscribe(
	context: IHookFunctions,
	service: CertificateServiceClient,
	subscriptionId: string,
): Promise<boolean> {
	try {
		await service.unsubscribe(subscriptionId);
		return true;
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		context.logger.warn(`Could not delete webhook subscription ${subscriptionId}: ${message}`);
		return false;
	}
}
