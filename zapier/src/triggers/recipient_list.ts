import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import { validationError, type Recipient } from '@certificate-service/sdk/core';
import { withClient } from '../lib/client';
import { dropdownPage } from '../lib/dropdown-page';
import { batchField, text } from '../lib/inputs';
import { outputItem, RECIPIENT_OUTPUT_FIELDS, SAMPLE_RECIPIENT } from '../lib/samples';

/** The dropdown's label: the name alone could be ambiguous, the email makes it unique in a batch. */
function recipientLabel(recipient: Pick<Recipient, 'name' | 'email'>): string {
  return `${recipient.name} <${recipient.email}>`;
}

const labelled = (recipient: Recipient) => ({ ...outputItem(recipient, RECIPIENT_OUTPUT_FIELDS), label: recipientLabel(recipient) });

/**
 * Powers the certificate dropdowns of Send, Update and Delete Certificate
 * (`recipient_list.id.label`): the certificates of the batch chosen in the same step,
 * which Zapier passes in `bundle.inputData.batch_id`, one page per call.
 */
export default defineTrigger({
  key: 'recipient_list',
  noun: 'Certificate',
  display: {
    label: 'New Certificate in Batch',
    description: 'Triggers when a certificate is issued in a batch. Lists the certificates of the chosen batch for the certificate dropdowns.',
    hidden: true,
  },
  operation: {
    type: 'polling',
    canPaginate: true,
    // Filled from the step's own Batch field when Zapier loads the dropdown.
    inputFields: [{ ...batchField, helpText: 'The batch whose certificates are listed.' }],
    perform: withClient(async (client, z: ZObject, bundle: Bundle) => {
      // Checked here so the dropdown says which field to fill first, before any request.
      const batchId = text(bundle.inputData.batch_id);
      if (!batchId) throw validationError('batchId', 'choose a batch first; the list shows its certificates');
      return (await dropdownPage(z, bundle, (cursor) => client.listRecipients(batchId, { cursor }))).map(labelled);
    }),
    sample: labelled(SAMPLE_RECIPIENT),
    outputFields: [...RECIPIENT_OUTPUT_FIELDS, { key: 'label', label: 'Name and Email', type: 'string' }],
  },
});
