import type { ILoadOptionsFunctions, ResourceMapperField, ResourceMapperFields } from 'n8n-workflow';

import { withClient } from '../../shared/client';
import { SEEN_IN_BATCH } from '../helpers/params';

const OTHER_WAYS = 'Choose "Using Fields Below" or "Using JSON" under Data to enter them by name.';

/**
 * The columns of "Map Design Variables": the chosen batch's design variables (or, when the
 * design lists none, the names seen in the batch's most recent certificates). Required ones
 * are marked on Issue only: on Update a column left empty keeps the certificate's value.
 */
export async function getVariableColumns(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const batchId = this.getNodeParameter('batch', '', { extractValue: true }) as unknown;
	if (typeof batchId !== 'string' || !batchId.trim()) {
		return { fields: [], emptyFieldsNotice: 'Choose a batch to see its design\'s variables.' };
	}
	if (batchId.includes('{{')) {
		return { fields: [], emptyFieldsNotice: `The batch comes from an expression, so its design's variables cannot be listed here. ${OTHER_WAYS}` };
	}
	const issuing = (this.getNodeParameter('operation', 'issue') as string) === 'issue';
	return await withClient(this, async (client) => {
		const { source, variables } = await client.getBatchVariables(batchId);
		if (source === 'none') {
			return { fields: [], emptyFieldsNotice: `The batch's design lists no variables and its certificates use none yet. ${OTHER_WAYS}` };
		}
		const fields: ResourceMapperField[] = variables.map((v) => ({
			id: v.name,
			displayName: v.source === 'seen' ? `${v.label}${SEEN_IN_BATCH}` : v.label,
			required: issuing && v.required,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: 'string',
			...(v.default !== undefined && issuing ? { defaultValue: v.default } : {}),
		}));
		return { fields };
	});
}
