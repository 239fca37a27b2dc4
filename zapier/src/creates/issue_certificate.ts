import { defineCreate } from 'zapier-platform-core';
import { withClient } from '../lib/client';
import { batchField, emailField, flag, nameField, sendField, text } from '../lib/inputs';
import { checkVariables, combinedData, loadVariableFields, runTimeVariables } from '../lib/variables';
import { outputItem, RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';

export default defineCreate({
  key: 'issue_certificate',
  noun: 'Certificate',
  display: {
    label: 'Issue Certificate',
    description: 'Creates a certificate for one recipient in a batch, and optionally emails it right away. Uses one unit of your plan quota.',
  },
  operation: {
    inputFields: [
      // Changing the batch reloads the design's variables below.
      { ...batchField, altersDynamicFields: true },
      { ...nameField, required: true },
      { ...emailField, required: true },
      loadVariableFields(),
      sendField,
      {
        key: 'skip_existing',
        label: 'Skip If Already Issued in This Batch',
        type: 'boolean',
        default: 'false',
        helpText:
          'Choose **True** to return the certificate this email (ignoring letter case) already has in the batch instead of issuing a second one. It reads the whole batch on every Zap run, so for one certificate per trigger prefer **Find or Issue Certificate**, which looks the email up first.',
      },
    ],
    perform: withClient(async (client, _z, bundle) => {
      const { batch_id, name, email, send, skip_existing } = bundle.inputData;
      const item = {
        batchId: text(batch_id) ?? '',
        name: text(name) ?? '',
        email: text(email) ?? '',
        data: combinedData(bundle.inputData),
        send: flag(send) ?? false,
      };
      checkVariables(client, await runTimeVariables(client, item.batchId, bundle.inputData), item.data);
      // Not retried if the answer is lost: the core reports "outcome unknown" instead of issuing twice.
      if (flag(skip_existing) !== true) {
        const { batchId, send, ...recipient } = item;
        return { ...outputItem(await client.issueCertificate(batchId, recipient, { send }), RECIPIENT_OUTPUT_FIELDS), skipped: false };
      }
      const [outcome] = await client.issueMany([item], { skipExisting: true, stopOnInvalid: true });
      if (!outcome.ok) throw outcome.error;
      return { ...outputItem(outcome.recipient, RECIPIENT_OUTPUT_FIELDS), skipped: outcome.skipped === true };
    }),
    sample: { ...SAMPLE_RECIPIENT, skipped: false },
    outputFields: [...RECIPIENT_OUTPUT_FIELDS, { key: 'skipped', label: 'Skipped (Already Issued)', type: 'boolean' }],
  },
});
