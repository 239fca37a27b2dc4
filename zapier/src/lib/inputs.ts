// Input helpers and the input fields several operations share. Values are checked by the
// core's validators; these helpers only undo how Zapier delivers them (strings for
// booleans, empty strings for cleared fields).

/** A trimmed string, or undefined for a missing or blank value. */
export function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const s = String(value).trim();
  return s ? s : undefined;
}

/** Zapier boolean fields arrive as booleans or as 'true'/'false'/'yes'/'no' strings. */
export function flag(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  const s = text(value)?.toLowerCase();
  if (s === undefined) return undefined;
  if (['true', 'yes', 'y', '1', 'on'].includes(s)) return true;
  if (['false', 'no', 'n', '0', 'off'].includes(s)) return false;
  return undefined;
}

/** A dict or JSON-text field; an empty one counts as not given. The core validates the values. */
export function dict(value: unknown): unknown {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) return undefined;
  return value;
}

export const batchField = {
  key: 'batch_id',
  label: 'Batch',
  required: true,
  dynamic: 'batch_list.id.title',
  helpText: 'The batch the certificate belongs to. Choose an active batch, or enter a batch ID such as `batch_123`.',
} as const;

/**
 * The certificate (the API's recipient) to act on: a dropdown of the chosen batch's
 * certificates, or a mapped ID, with a search step offered to look it up by email.
 * It waits for the Batch field and is cleared when the batch changes (`dependsOn`).
 */
export const recipientField = {
  key: 'recipient_id',
  label: 'Certificate', // the n8n node's name for the same field (one vocabulary); the key stays
  required: true,
  dynamic: 'recipient_list.id.label',
  search: 'find_recipient.id',
  dependsOn: ['batch_id'] as string[],
  helpText:
    'The certificate to use. Choose one from the batch, or map its Recipient ID (such as `rec_123`) from an earlier step such as **Find Certificate by Email** or **Issue Certificate**.',
} as const;

export const nameField = {
  key: 'name',
  label: 'Recipient Name',
  helpText: 'The full name printed on the certificate.',
} as const;

export const emailField = {
  key: 'email',
  label: 'Recipient Email',
  helpText: 'The email address the certificate is sent to.',
} as const;

export const dataField = {
  key: 'data',
  label: 'Certificate Variables',
  dict: true,
  helpText:
    'Values for the dynamic fields of the certificate design, such as `course` or `score`. Each value is sent as text.',
} as const;

export const sendField = {
  key: 'send',
  label: 'Send Email Now',
  type: 'boolean',
  default: 'false',
  helpText: 'Choose **True** to email the certificate to the recipient right away. Otherwise it can be sent later with **Send Certificate**.',
} as const;
