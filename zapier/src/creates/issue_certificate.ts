import { defineCreate } from 'zapier-platform-core';
import { assertNever } from '@certificate-service/sdk/core';
import { withClient } from '../lib/client';
import { batchField, emailField, flag, nameField, sendField, text } from '../lib/inputs';
import { combinedData, loadVariableFields } from '../lib/variables';
import { designVariables } from '../lib/design-check';
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
    // The return type makes a kind of outcome this switch forgets a build error.
    perform: withClient(async (client, z, bundle): Promise<Record<string, unknown>> => {
      const { batch_id, name, email, send, skip_existing } = bundle.inputData;
      const item = { batchId: text(batch_id) ?? '', name: text(name) ?? '', email: text(email) ?? '', data: combinedData(bundle.inputData), send: flag(send) ?? false };
      // The core's issue plan, for one item. Skip-existing is off unless asked: it reads the whole
      // batch on every run (see the README). The design check is the core's, with the design read
      // kept in z.cache across runs (design-check.ts). Never repeated after an unknown outcome.
      const [outcome] = await client.issueMany([item], {
        skipExisting: flag(skip_existing) === true,
        stopOnInvalid: true,
        variables: await designVariables(z, bundle, client, item.batchId),
      });
      switch (outcome.kind) {
        case 'issued':
        case 'skipped':
          return { ...outputItem(outcome.recipient, RECIPIENT_OUTPUT_FIELDS), skipped: outcome.kind === 'skipped' };
        case 'invalid':
        case 'failed':
        case 'unknown':
        case 'notSent':
        case 'refusedEarlier':
        case 'unreadBatch':
          throw outcome.error; // mapped once, by withClient
        default:
          return assertNever(outcome);
      }
    }),
    sample: { ...SAMPLE_RECIPIENT, skipped: false },
    outputFields: [...RECIPIENT_OUTPUT_FIELDS, { key: 'skipped', label: 'Skipped (Already Issued)', type: 'boolean' }],
  },
});
