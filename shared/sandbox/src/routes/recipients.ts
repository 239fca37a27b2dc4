import { ApiError, notFound, validationError } from '../errors';
import { EMAIL_STATUSES } from '../choices';
import { assertCanIssue, assertRequiredVariables, issueRecipients, parseIssueItem, requiredVariables } from '../issuing';
import { shapeList } from '../list-shapes';
import { pageRecipients } from '../pagination';
import type { RecipientRecord } from '../store';
import { dataObject, objectBody, optionalBoolean, optionalString, requiredEmail } from '../validate';
import { requireBatch } from './batches';
import type { ApiRequest, ApiRoute } from './types';
import { SUCCESS_STATUS } from '../choices';

function requireRecipient(r: ApiRequest, batchId: string, id: string): RecipientRecord {
  const rec = r.sb.store.recipientOf(requireBatch(r, batchId), id);
  if (!rec) throw notFound('recipient', id);
  return rec;
}

export const recipientRoutes: ApiRoute[] = [
  {
    method: 'GET',
    pattern: '/batches/:id/recipients',
    handler: (r, { id }) => {
      const batch = requireBatch(r, id);
      const emailStatus = r.query.get('emailStatus');
      if (emailStatus !== null && !(EMAIL_STATUSES as readonly string[]).includes(emailStatus)) {
        throw validationError('emailStatus', `emailStatus must be one of ${EMAIL_STATUSES.join(', ')}; got "${emailStatus}".`);
      }
      // The list model is a sandbox setting (the spec does not say); the list id keeps cursors of
      // another order or kind apart.
      const { recipientOrder: order, cursorKind: kind, cursorExpiry: expiry } = r.sb.settings;
      const listId = `recipients:${batch.id}:${order}:${kind}`;
      const model = { order, kind, expiry, now: r.sb.now(), writes: r.sb.store.writes.get(batch.id) ?? 0 };
      const page = pageRecipients(batch.recipients, listId, r.query, model, (rec) =>
        emailStatus === null ? true : rec.recipient.emailStatus === emailStatus,
      );
      const data = page.items.map((rec) => rec.recipient);
      return { status: 200, body: shapeList(r.sb.settings.listShape, 'recipients', data, page.nextCursor) };
    },
  },
  {
    method: 'POST',
    pattern: '/batches/:id/recipients',
    handler: (r, { id }) => {
      const batch = requireBatch(r, id);
      const input = objectBody(r.body);
      const item = parseIssueItem(input, '', requiredVariables(r.ws, batch));
      const send = optionalBoolean(input, 'send') ?? false;
      assertCanIssue(r.ws, batch, 1);
      const [rec] = issueRecipients(r.sb, r.ws, batch, [item], send);
      return { status: SUCCESS_STATUS.issue, body: rec.recipient };
    },
  },
  {
    method: 'GET',
    pattern: '/batches/:id/recipients/:rid',
    handler: (r, { id, rid }) => ({ status: 200, body: requireRecipient(r, id, rid).recipient }),
  },
  {
    // Partial update; `data` is merged key by key (null removes a key). All-or-nothing.
    method: 'PATCH',
    pattern: '/batches/:id/recipients/:rid',
    handler: (r, { id, rid }) => {
      const rec = requireRecipient(r, id, rid);
      const input = objectBody(r.body);
      const name = optionalString(input, 'name');
      const email = input.email === undefined ? undefined : requiredEmail(input, 'email');
      const data = input.data === undefined ? undefined : dataObject(input.data, 'data', true);
      if (name === undefined && email === undefined && data === undefined) {
        throw validationError('body', 'Nothing to update: send at least one of name, email, data.');
      }
      const target = rec.recipient;
      let merged: Record<string, string> | undefined;
      if (data !== undefined) {
        merged = { ...target.data };
        for (const [k, v] of Object.entries(data)) {
          if (v === null) delete merged[k];
          else merged[k] = v;
        }
        // Only what this update blanks or removes: a certificate issued before the rule keeps its data.
        const touched = requiredVariables(r.ws, requireBatch(r, id)).filter((k) => k in data);
        assertRequiredVariables(merged, touched);
      }
      r.sb.store.touch(target.batchId);
      if (name !== undefined) target.name = name;
      if (email !== undefined) target.email = email;
      if (merged !== undefined) target.data = merged;
      return { status: 200, body: target };
    },
  },
  {
    method: 'DELETE',
    pattern: '/batches/:id/recipients/:rid',
    handler: (r, { id, rid }) => {
      const batch = requireBatch(r, id);
      const rec = requireRecipient(r, id, rid);
      r.sb.store.removeRecipient(batch, rec);
      return { status: SUCCESS_STATUS.delete };
    },
  },
  {
    method: 'POST',
    pattern: '/batches/:id/recipients/:rid/send',
    handler: (r, { id, rid }) => {
      const rec = requireRecipient(r, id, rid);
      if (rec.recipient.emailStatus === 'queued') {
        throw new ApiError('CONFLICT', `The email of recipient ${rid} is already queued.`, {
          recipientId: rid,
          emailStatus: 'queued',
        });
      }
      r.sb.mail.queue(rec);
      return { status: SUCCESS_STATUS.send, body: rec.recipient };
    },
  },
];
