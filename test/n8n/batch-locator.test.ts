// One batch picker in every node: the action's (required), the webhook trigger's (optional, any
// batch) and the poll trigger's (shown when watching a batch) differ only where they must.
import type { INodeProperties } from 'n8n-workflow';
import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { CertificateServicePollTrigger } from '../../n8n/nodes/CertificateServicePollTrigger/CertificateServicePollTrigger.node';
import { CertificateServiceTrigger } from '../../n8n/nodes/CertificateServiceTrigger/CertificateServiceTrigger.node';

const batchOf = (properties: INodeProperties[]) => properties.filter((p) => p.name === 'batch');

test('every node picks a batch with the same locator: list (searchBatches) or ID', () => {
  const action = batchOf(new CertificateService().description.properties);
  const trigger = batchOf(new CertificateServiceTrigger().description.properties);
  const poll = batchOf(new CertificateServicePollTrigger().description.properties);
  expect(trigger).toHaveLength(1);
  expect(poll).toHaveLength(1);
  expect(action.length).toBeGreaterThan(0);
  const modes = (p: INodeProperties) => p.modes?.map((m) => ({ ...m, placeholder: undefined }));
  for (const p of [...action, ...trigger, ...poll]) {
    expect(p).toMatchObject({ displayName: 'Batch', type: 'resourceLocator', default: { mode: 'list', value: '' } });
    expect(modes(p)).toEqual(modes(action[0]));
  }
  expect(trigger[0]).toMatchObject({ description: 'Only start for certificates of this batch. Leave empty for all batches.' });
  expect(trigger[0].required).toBeUndefined();
  expect(trigger[0].modes?.[0].placeholder).toBe('Any batch');
  expect(poll[0]).toMatchObject({ required: true, displayOptions: { show: { watch: ['batch'] } } });
  expect(action[0].modes?.[0].placeholder).toBe('Select a batch...');
});
