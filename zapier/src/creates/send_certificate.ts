import { defineCreate } from 'zapier-platform-core';
import { withClient } from '../lib/client';
import { batchField, recipientField, text } from '../lib/inputs';
import { outputItem, RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';

const OUTPUT_FIELDS = [...RECIPIENT_OUTPUT_FIELDS, { key: 'queued', label: 'Queued', type: 'boolean' as const }];

export default defineCreate({
  key: 'send_certificate',
  noun: 'Certificate',
  display: {
    label: 'Send Certificate',
    description: 'Queues the certificate email for an issued certificate, for example one issued without sending.',
  },
  operation: {
    inputFields: [batchField, recipientField],
    perform: withClient(async (client, _z, bundle) =>
      outputItem(await client.sendCertificate(text(bundle.inputData.batch_id) ?? '', text(bundle.inputData.recipient_id) ?? ''), OUTPUT_FIELDS),
    ),
    // The response body is not documented; the recipient, plus `queued`, is what the service
    // returns. The sample shows every field: Email Sent At is that of an earlier send (it is
    // absent for a certificate never sent before).
    sample: { ...SAMPLE_RECIPIENT, emailStatus: 'queued', queued: true },
    outputFields: OUTPUT_FIELDS,
  },
});
