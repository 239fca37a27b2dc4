/**
 * The node's copy (issue 12, items 5 and 11): one vocabulary with the Zapier app, n8n's UX
 * guidelines for action names and placeholders, and the operation names of the brief's table.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { CertificateServiceTrigger } from '../../n8n/nodes/CertificateServiceTrigger/CertificateServiceTrigger.node';
import { CertificateServiceApi } from '../../n8n/credentials/CertificateServiceApi.credentials';
import { shareTokenFrom } from '@certificate-service/sdk/core';
import { EMAIL_STATUSES } from '@certificate-service/sandbox';

const node = new CertificateService().description;
const properties = node.properties;

function operations(resource: string): INodePropertyOptions[] {
	const prop = properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource));
	return (prop?.options ?? []) as INodePropertyOptions[];
}

/** Every property, nested collections and locator modes included. */
function walk(list: INodeProperties[], visit: (p: INodeProperties & { placeholder?: string }) => void) {
	for (const p of list) {
		visit(p);
		for (const o of (p.options ?? []) as Array<INodeProperties | { values?: INodeProperties[] }>) {
			if ('values' in o && Array.isArray(o.values)) walk(o.values, visit);
			else if ('displayName' in o && 'type' in o) walk([o as INodeProperties], visit);
		}
		for (const m of p.modes ?? []) visit(m as unknown as INodeProperties);
	}
}

describe('one vocabulary', () => {
	it('has the resources Batch, Certificate, Delivery and Design; the Lookup resource is folded into Certificate', () => {
		const resource = properties.find((p) => p.name === 'resource')!;
		expect((resource.options as INodePropertyOptions[]).map((o) => o.value)).toEqual(['batch', 'certificate', 'delivery', 'design']);
	});

	it.each([
		['batch', { archive: 'Archive', create: 'Create', get: 'Get', getMany: 'Get Many', unarchive: 'Unarchive' }],
		['design', { getMany: 'Get Many' }],
		['delivery', { verify: 'Verify' }],
		[
			'certificate',
			{
				delete: 'Delete',
				findByEmail: 'Find by Email',
				get: 'Get',
				getByCertificateId: 'Get by Certificate ID',
				getByShareToken: 'Get by Share Token or URL',
				getMany: 'Get Many',
				issue: 'Issue',
				send: 'Send',
				update: 'Update',
			},
		],
	])('%s operations are named as in the table', (resource, names) => {
		const ops = operations(resource);
		// Each name in the table is the node's; a new operation adds its row, and breaks none.
		expect(Object.fromEntries(ops.map((o) => [o.value, o.name]))).toMatchObject(names);
		// n8n lists them alphabetically by name
		expect(ops.map((o) => o.name)).toEqual([...ops.map((o) => o.name)].sort((a, b) => a.localeCompare(b)));
	});

	it('action names have no articles and name the resource', () => {
		for (const resource of ['batch', 'certificate', 'design']) {
			for (const op of operations(resource)) {
				expect(op.action).not.toMatch(/\b(a|an|the)\b/i);
				expect(op.action?.toLowerCase()).toContain(resource);
			}
		}
		expect(operations('certificate').find((o) => o.value === 'issue')?.action).toBe('Issue certificate');
		expect(operations('batch').find((o) => o.value === 'getMany')?.action).toBe('Get many batches');
	});

	it('user-facing names say "certificate", not "recipient", for the issued thing', () => {
		// "recipient" stays only for the person (Recipient Name, "email it to its recipient")
		const texts: string[] = [node.description ?? ''];
		for (const resource of ['batch', 'certificate', 'design']) for (const op of operations(resource)) texts.push(op.name, op.action ?? '');
		walk(properties, (p) => texts.push(p.displayName));
		for (const text of texts) expect(text).not.toMatch(/\brecipients?\b(?! name| email)/i);
		const trigger = new CertificateServiceTrigger().description;
		expect(trigger.description).not.toMatch(/recipient/i);
	});
});

describe('UX guidelines', () => {
	it('text placeholders start with "e.g." (except "Add ..." and "Select ..." buttons and JSON)', () => {
		const placeholders: string[] = [];
		walk(properties, (p) => {
			if (typeof p.placeholder === 'string' && p.type !== 'json') placeholders.push(p.placeholder);
		});
		expect(placeholders.length).toBeGreaterThan(10);
		for (const text of placeholders) expect(text).toMatch(/^(e\.g\. |Add |Select )/);
	});

	it('Email Status is a list of options, not free text, with the states the sandbox chose (choices.ts)', () => {
		const getMany = properties.find((p) => p.name === 'filters' && p.displayOptions?.show?.operation?.includes('getMany') && p.displayOptions?.show?.resource?.includes('certificate'))!;
		const emailStatus = (getMany.options as INodeProperties[]).find((o) => o.name === 'emailStatus')!;
		expect(emailStatus.type).toBe('options');
		expect((emailStatus.options as INodePropertyOptions[]).map((o) => o.value).sort()).toEqual([...EMAIL_STATUSES].sort());
	});

	it('the Certificate of Get, Update, Delete and Send is a locator: From List, By ID, By Certificate URL', () => {
		for (const operation of ['get', 'update', 'delete', 'send']) {
			const locator = properties.find((p) => p.name === 'recipientId' && p.displayOptions?.show?.operation?.includes(operation))!;
			expect(locator.type).toBe('resourceLocator');
			expect(locator.modes?.map((m) => m.name)).toEqual(['list', 'id', 'url']);
			expect(locator.modes?.[0].typeOptions?.searchListMethod).toBe('searchRecipients');
		}
		expect(Object.keys(new CertificateService().methods.listSearch)).toContain('searchRecipients');
		// the editor's check of the URL mode accepts what the node accepts (shareTokenFrom)
		const urlMode = properties.find((p) => p.name === 'recipientId')!.modes!.find((m) => m.name === 'url')!;
		const regex = new RegExp((urlMode.validation![0] as unknown as { properties: { regex: string } }).properties.regex);
		for (const url of ['https://c.example.com/v/tok1', 'https://c.example.com/app/v/tok1/?ref=mail#top', 'http://localhost:4010/v/tok1']) {
			expect(regex.test(url)).toBe(true);
			expect(shareTokenFrom(url, 'recipientId')).toBe('tok1');
		}
		for (const url of ['https://c.example.com/x/tok1', 'tok1']) expect(regex.test(url)).toBe(false);
	});

	it('operations returning certificates have Simplify, on by default; the node is usable as a tool', () => {
		for (const operation of ['issue', 'get', 'getMany', 'update', 'getByCertificateId', 'getByShareToken', 'findByEmail']) {
			const simplify = properties.find((p) => p.name === 'simplify' && p.displayOptions?.show?.operation?.includes(operation));
			expect(simplify).toMatchObject({ type: 'boolean', default: true });
		}
		expect(node.usableAsTool).toBe(true);
	});

	it('the trigger tells the user that webhook URLs must be https:// off localhost', () => {
		const notice = new CertificateServiceTrigger().description.properties.find((p) => p.type === 'notice');
		expect(notice?.displayName).toMatch(/https:\/\//);
		expect(notice?.displayName).toMatch(/WEBHOOK_URL/);
	});

	it('the credential placeholder is an example', () => {
		const baseUrl = new CertificateServiceApi().properties.find((p) => p.name === 'baseUrl')!;
		expect(baseUrl.placeholder).toMatch(/^e\.g\. https:\/\//);
	});
});
