import type { INodeProperties } from 'n8n-workflow';
import { batchLocator as sharedBatchLocator } from '../../shared/batch-locator';

/** The batch the certificates belong to (the one picker every node uses). */
export const batchLocator: INodeProperties = sharedBatchLocator({ description: 'The batch the certificates belong to' });

/** A certificate design picked from a searchable list or given by ID. */
export const designLocator: INodeProperties = {
	displayName: 'Design',
	name: 'design',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The certificate design the batch uses',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a design...',
			typeOptions: {
				searchListMethod: 'searchDesigns',
				searchable: true,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. design_classic',
		},
	],
};

/**
 * The issued certificate (its recipient record) in the chosen batch: picked from the batch's
 * list (searchable by name and email), given by its rec_… ID, or by its certificate URL.
 */
export const recipientLocator: INodeProperties = {
	displayName: 'Certificate',
	name: 'recipientId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The issued certificate in the chosen batch',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a certificate...',
			typeOptions: {
				searchListMethod: 'searchRecipients',
				searchable: true,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. rec_5hq2m9',
			hint: 'The recipient ID (rec_…) returned by Issue or Get Many, not the CERT-… number',
		},
		{
			displayName: 'By Certificate URL',
			name: 'url',
			type: 'string',
			placeholder: 'e.g. https://certificates.example.com/v/3kP9xQ2mVb',
			hint: 'The certificate URL (certUrl); its share token identifies the certificate',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: '^https?://.+/v/[^/?#]+/?([?#].*)?$',
						errorMessage: 'A certificate URL ends in /v/<share token>',
					},
				},
			],
		},
	],
};

/** The recipient's email (Issue: where the certificate goes; Find by Email: what to look for). */
export function recipientEmailField(description: string): INodeProperties {
	return {
		displayName: 'Recipient Email',
		name: 'email',
		type: 'string',
		placeholder: 'e.g. name@email.com',
		required: true,
		default: '',
		description,
	};
}

/** "Simplify" on operations that return certificates: the ten fields a workflow needs. */
export const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description:
		'Whether to return a simplified version of the response instead of the raw data: the ten fields a workflow needs (ID, batch ID, name, email, certificate ID, certificate URL, share token, issue date, email status and data)',
};

const returnAllField: INodeProperties = {
	displayName: 'Return All',
	name: 'returnAll',
	type: 'boolean',
	default: false,
	description: 'Whether to return all results or only up to a given limit',
};

const limitField: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 50,
	description: 'Max number of results to return',
	displayOptions: { show: { returnAll: [false] } },
};

/** A Get Many operation's Return All and Limit (read by readLimit). */
export const getManyFields: INodeProperties[] = [returnAllField, limitField];

/**
 * The certificate variables: the chosen batch's design variables as columns (a resource
 * mapper), name/value pairs, or one JSON object. Values are strings on the service; numbers
 * and booleans are converted.
 * Issue's default is "Map Design Variables"; Update's is "Don't Change".
 */
export function dataFieldsProperties(options: { allowKeep: boolean }): INodeProperties[] {
	const description =
		'How to give the certificate variables (the dynamic fields printed on the certificate)';
	const mapped = {
		name: 'Map Design Variables',
		value: 'mapVariables',
		description: "Fill in the chosen batch's design variables, listed as columns",
	};
	const fields = {
		name: 'Using Fields Below',
		value: 'fields',
		description: 'Enter the certificate variables as name/value pairs',
	};
	const json = {
		name: 'Using JSON',
		value: 'json',
		description: 'Give the certificate variables as one JSON object',
	};
	const keep = {
		name: "Don't Change",
		value: 'keep',
		description: 'Leave the certificate variables as they are',
	};
	const defaultData = options.allowKeep ? 'keep' : 'mapVariables';
	const specifyData: INodeProperties = {
		displayName: 'Data',
		name: 'specifyData',
		type: 'options',
		options: options.allowKeep ? [keep, mapped, fields, json] : [mapped, fields, json],
		default: defaultData,
		description,
	};
	const variables: INodeProperties = {
		displayName: 'Variables',
		name: 'variables',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		typeOptions: {
			loadOptionsDependsOn: ['batch.value'],
			resourceMapper: {
				resourceMapperMethod: 'getVariableColumns',
				mode: 'add',
				fieldWords: { singular: 'variable', plural: 'variables' },
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: true,
				noFieldsError:
					'No variables found for this batch. Choose "Using Fields Below" or "Using JSON" under Data to enter them by name.',
			},
		},
		displayOptions: { show: { specifyData: ['mapVariables'] } },
	};
	return [
		specifyData,
		variables,
		{
			displayName: 'Data Fields',
			name: 'dataFields',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			placeholder: 'Add Field',
			default: {},
			displayOptions: { show: { specifyData: ['fields'] } },
			options: [
				{
					displayName: 'Field',
					name: 'field',
					values: [
						{
							displayName: 'Name',
							name: 'name',
							type: 'string',
							default: '',
							placeholder: 'e.g. course',
							description: 'Name of the certificate variable',
						},
						{
							displayName: 'Value',
							name: 'value',
							type: 'string',
							default: '',
							placeholder: 'e.g. Advanced Welding',
							description: 'Value printed on the certificate',
						},
					],
				},
			],
		},
		{
			displayName: 'Data (JSON)',
			name: 'dataJson',
			type: 'json',
			default: '{}',
			placeholder: '{ "course": "Advanced Welding", "hours": 12 }',
			description: 'An object of variable names to string, number or boolean values',
			displayOptions: { show: { specifyData: ['json'] } },
		},
	];
}
