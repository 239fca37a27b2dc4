import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { assertNever, type CertificateServiceClient, type Recipient } from '@certificate-service/sdk/core';
import { withClient } from '../lib/client';
import { batchField, emailField, flag, nameField, sendField, text } from '../lib/inputs';
import { allowsUnknownVariables, combinedData, loadVariableFields } from '../lib/variables';
import { designVariables } from '../lib/design-check';
import { lostAnswer, lostAnswerKey } from '../lib/lost-answer';
import { outputItem, RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';

/**
 * The step's output: the certificate, `skipped` when it was already in the batch and not issued
 * by this run, and `recovered` when that is because an earlier attempt's answer was lost (the
 * certificate that attempt issued, found on replay).
 */
function output(recipient: Recipient, flags: { skipped: boolean; recovered: boolean }): Record<string, unknown> {
  return { ...outputItem(recipient, RECIPIENT_OUTPUT_FIELDS), ...flags };
}

/**
 * The step (withClient builds the client and maps what it throws). The return type makes a kind
 * of outcome the switch forgets a build error.
 */
export async function issueOne(client: CertificateServiceClient, z: ZObject, bundle: Bundle): Promise<Record<string, unknown>> {
  const { batch_id, name, email, send, skip_existing } = bundle.inputData;
  const item = { batchId: text(batch_id) ?? '', name: text(name) ?? '', email: text(email) ?? '', data: combinedData(bundle.inputData), send: flag(send) ?? false };
  const skipExisting = flag(skip_existing) === true;
  // An earlier attempt's lost answer (lost-answer.ts), read beside the design (kept in z.cache
  // across runs: design-check.ts), so the normal path waits for one cache round trip.
  const lost = lostAnswer(z, item.batchId && item.email ? lostAnswerKey(bundle.authData, item.batchId, item.email) : undefined);
  const [marker, variables] = await Promise.all([lost.read(), designVariables(z, bundle, client, item.batchId)]);
  if (marker) {
    lost.settle(marker);
    // With skip-existing on, the issue plan reads the batch itself.
    const found = skipExisting ? null : await client.findRecipientByEmail(item.batchId, item.email);
    if (found) {
      await lost.clear();
      return output(found, { skipped: true, recovered: true });
    }
  }
  // The core's issue plan, for one item. Skip-existing is off unless asked: it reads the whole
  // batch on every run (see the README). Never repeated after an unknown outcome.
  const [outcome] = await client.issueMany([item], { skipExisting, stopOnInvalid: true, variables, allowUnknownVariables: allowsUnknownVariables(bundle.inputData) });
  switch (outcome.kind) {
    case 'issued':
    case 'skipped':
      if (marker) await lost.clear();
      return output(outcome.recipient, { skipped: outcome.kind === 'skipped', recovered: !!marker && outcome.kind === 'skipped' });
    case 'unknown':
      throw await lost.record(outcome.error); // marked, then mapped (a replay is safe, or the step is halted)
    case 'invalid':
    case 'failed':
    case 'notSent':
    case 'refusedEarlier':
    case 'unreadBatch':
      throw outcome.error; // mapped once, by withClient
    default:
      return assertNever(outcome);
  }
}

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
    perform: withClient(issueOne),
    sample: { ...SAMPLE_RECIPIENT, skipped: false, recovered: false },
    outputFields: [
      ...RECIPIENT_OUTPUT_FIELDS,
      { key: 'skipped', label: 'Skipped (Already Issued)', type: 'boolean' },
      { key: 'recovered', label: 'Recovered (Found After a Lost Answer)', type: 'boolean' },
    ],
  },
});
