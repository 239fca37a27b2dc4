// The short forms tools answer with: what a model needs to go on, not every field.
import { validationError, type Batch, type BatchChange, type CertificateServiceClient, type Recipient, type RecipientChange } from '@certificate-service/sdk';
import { z } from 'zod/v4';

/** A certificate, or what an update answered (fields it did not send stay out of the JSON). */
export const certificateView = (r: Recipient | RecipientChange) => ({
  id: r.id,
  batchId: r.batchId,
  certificateId: r.certificateId,
  name: r.name,
  email: r.email,
  certUrl: r.certUrl,
  emailStatus: r.emailStatus,
  issueDate: r.issueDate,
  data: r.data,
});

export const batchView = (b: Batch | BatchChange) => ({ id: b.id, title: b.title, designId: b.designId, status: b.status });

/** Which certificate a tool acts on: its certificate ID, or its batch and recipient id. */
export const certificateTarget = {
  certificateId: z.string().optional().describe('CERT-…, or batchId and recipientId ("id" in find answers)'),
  batchId: z.string().optional(),
  recipientId: z.string().optional(),
};

/** Reads the certificate a tool is about to change (one GET), so the confirmation can show it. */
export async function findTarget(client: CertificateServiceClient, t: { certificateId?: string; batchId?: string; recipientId?: string }): Promise<Recipient> {
  if (t.batchId?.trim() && t.recipientId?.trim()) return client.getRecipient(t.batchId, t.recipientId);
  if (t.certificateId?.trim()) return client.getCertificate(t.certificateId);
  throw validationError('certificateId', 'give the certificate ID (CERT-…), or both batchId and recipientId');
}

export const confirmationToken = z.string().optional().describe('From a dry run, if the user agreed.');

// Output schemas: the fields callers read, typed; loose, so a field added later breaks no client.
/** Any object (a batch, a check, a subscription): batchView and the like say what it holds. */
export const object = z.looseObject({});
export const batchOut = object;
export const certificateOut = z.looseObject({ certificateId: z.string() });
/** What a tool that asks first answers: done, or a dry run with its token (or why the user said no). */
export const confirmable = {
  done: z.boolean(),
  confirmationToken: z.string().optional(),
  expiresAt: z.string().optional(),
};
