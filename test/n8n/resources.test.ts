/**
 * Each resource lists its operation files once (actions/resource.ts): the router's `execute`s and
 * the node's parameters come from that list, while the "Operation" options stay written out for
 * n8n's lint. These tests hold the two together.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import * as batch from '../../n8n/nodes/CertificateService/actions/batch/Batch.resource';
import * as certificate from '../../n8n/nodes/CertificateService/actions/certificate/Certificate.resource';
import * as delivery from '../../n8n/nodes/CertificateService/actions/delivery/Delivery.resource';
import * as design from '../../n8n/nodes/CertificateService/actions/design/Design.resource';
import { resourceOperations } from '../../n8n/nodes/CertificateService/actions/resource';

const resources = { batch, certificate, delivery, design };

describe.each(Object.entries(resources))('resource %s', (resource, mod) => {
	const [operation, ...parameters] = mod.description;
	const options = (operation.options ?? []) as INodePropertyOptions[];

	it('routes exactly the operations its Operation parameter offers, in the same order', () => {
		expect(operation).toMatchObject({ name: 'operation', displayOptions: { show: { resource: [resource] } } });
		expect(Object.keys(mod.operations)).toEqual(options.map((o) => o.value));
		for (const execute of Object.values(mod.operations)) expect(typeof execute).toBe('function');
	});

	it("lists each operation's parameters in that order, each shown for its own operation only", () => {
		const shownFor = parameters.map((p: INodeProperties) => p.displayOptions?.show?.operation);
		for (const ops of shownFor) expect(ops).toHaveLength(1);
		const order = [...new Set(shownFor.map((ops) => ops![0]))];
		expect(order).toEqual(options.map((o) => o.value).filter((v) => order.includes(v)));
		for (const p of parameters) expect(p.displayOptions?.show?.resource).toEqual([resource]);
	});
});

it("the node's properties are the resource picker, then each resource's description as built", () => {
	const { properties } = new CertificateService().description;
	expect(properties.slice(1)).toEqual(Object.values(resources).flatMap((r) => r.description));
});

it('resourceOperations keeps the listed order for both the executes and the parameters', () => {
	const p = (name: string): INodeProperties => ({ displayName: name, name, type: 'string', default: '' });
	const second = { description: [p('b1'), p('b2')], execute: async () => [] };
	const first = { description: [p('a1')], execute: async () => [] };
	const built = resourceOperations({ second, first });
	expect(Object.keys(built.operations)).toEqual(['second', 'first']);
	expect(built.operations.first).toBe(first.execute);
	expect(built.properties.map((x) => x.name)).toEqual(['b1', 'b2', 'a1']);
});
