import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { withClient } from './client';

interface Named {
	id: string;
	title?: unknown;
	name?: unknown;
	email?: unknown;
	status?: unknown;
}

/** One page of the service's list; `filter` narrows that page by label (name, email) or ID. */
function toResult(
	items: Named[],
	label: (item: Named) => string,
	nextCursor: string | null,
	filter?: string,
): INodeListSearchResult {
	const needle = filter?.trim().toLowerCase();
	const results = items
		.filter((item) => typeof item?.id === 'string')
		.map((item) => ({ name: label(item), value: item.id }))
		.filter(
			(r) =>
				!needle ||
				r.name.toLowerCase().includes(needle) ||
				String(r.value).toLowerCase().includes(needle),
		);
	return { results, paginationToken: nextCursor ?? undefined };
}

/** Batches of the workspace, newest pages first as the service returns them; archived ones marked. */
export async function searchBatches(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await withClient(this, async (client) => {
		const page = await client.listBatches({ cursor: paginationToken, status: 'all' });
		const label = (b: Named) => {
			const title = typeof b.title === 'string' && b.title ? b.title : b.id;
			return b.status === 'archived' ? `${title} (archived)` : title;
		};
		return toResult(page.items as Named[], label, page.nextCursor, filter);
	});
}

export async function searchDesigns(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await withClient(this, async (client) => {
		const page = await client.listDesigns({ cursor: paginationToken });
		const label = (d: Named) => (typeof d.name === 'string' && d.name ? d.name : d.id);
		return toResult(page.items as Named[], label, page.nextCursor, filter);
	});
}

/**
 * Certificates of the batch chosen in the node, one service page (100) at a time, searchable
 * by name and email. The service has no search parameter, so each page is filtered here.
 */
export async function searchRecipients(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const batchId = this.getNodeParameter('batch', '', { extractValue: true }) as unknown;
	if (typeof batchId !== 'string' || !batchId.trim()) {
		return { results: [] }; // choose a batch first
	}
	return await withClient(this, async (client) => {
		const page = await client.listRecipients(batchId, { cursor: paginationToken, limit: 100 });
		const label = (r: Named) => {
			const name = typeof r.name === 'string' && r.name ? r.name : r.id;
			return typeof r.email === 'string' && r.email ? `${name} <${r.email}>` : name;
		};
		return toResult(page.items, label, page.nextCursor, filter);
	});
}
