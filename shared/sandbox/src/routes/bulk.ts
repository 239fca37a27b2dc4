// Bulk issue. The body and response are "not shown" in the spec; our default is
// { recipients: [{name, email, data?}], send? } -> 201 { data: [...] }, all-or-nothing.
// setBulkResponseShape('results') switches to per-item results with partial success.
import { ApiError, validationError } from '../errors';
import { type IssueItem, assertCanIssue, issueRecipients, parseIssueItem, requiredVariables } from '../issuing';
import type { RecipientRecord } from '../store';
import type { BulkResponseShape } from '../types';
import { objectBody, optionalBoolean } from '../validate';
import { requireBatch } from './batches';
import type { ApiRoute } from './types';
import { MAX_BULK_ITEMS, SUCCESS_STATUS } from '../choices';

export const MAX_BULK = MAX_BULK_ITEMS;

function parseItem(raw: unknown, index: number, required: readonly string[]): IssueItem {
  try {
    return parseIssueItem(raw, `recipients[${index}].`, required);
  } catch (err) {
    if (err instanceof ApiError) throw new ApiError(err.code, err.message, { ...err.detail, index }, err.status);
    throw err;
  }
}

function shapeIssued(shape: Exclude<BulkResponseShape, 'results'>, recs: RecipientRecord[]): unknown {
  const data = recs.map((r) => r.recipient);
  if (shape === 'bare') return data;
  if (shape === 'recipients') return { recipients: data };
  return { data };
}

export const bulkRoutes: ApiRoute[] = [
  {
    method: 'POST',
    pattern: '/batches/:id/recipients/bulk',
    handler: (r, { id }) => {
      const batch = requireBatch(r, id);
      const input = objectBody(r.body);
      const list = input.recipients;
      if (!Array.isArray(list)) throw validationError('recipients', 'recipients must be an array of {name, email, data?}.');
      if (list.length < 1 || list.length > MAX_BULK) {
        throw validationError('recipients', `recipients must hold 1 to ${MAX_BULK} items; got ${list.length}.`, {
          count: list.length,
          max: MAX_BULK,
        });
      }
      const send = optionalBoolean(input, 'send') ?? false;
      const shape = r.sb.settings.bulkResponseShape;
      const required = requiredVariables(r.ws, batch);

      if (shape !== 'results') {
        // All-or-nothing: the first invalid item rejects the whole call.
        const items = list.map((raw, index) => parseItem(raw, index, required));
        assertCanIssue(r.ws, batch, items.length);
        return { status: SUCCESS_STATUS.bulkIssue, body: shapeIssued(shape, issueRecipients(r.sb, r.ws, batch, items, send)) };
      }

      // Partial success: invalid items fail on their own, valid ones are issued together.
      const results: Array<{ index: number; recipient?: unknown; error?: unknown }> = [];
      const valid: Array<{ index: number; item: IssueItem }> = [];
      list.forEach((raw, index) => {
        try {
          valid.push({ index, item: parseItem(raw, index, required) });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          results[index] = { index, error: err.toBody() };
        }
      });
      assertCanIssue(r.ws, batch, valid.length);
      const recs = issueRecipients(r.sb, r.ws, batch, valid.map((v) => v.item), send);
      valid.forEach((v, i) => (results[v.index] = { index: v.index, recipient: recs[i].recipient }));
      return { status: valid.length === list.length ? SUCCESS_STATUS.bulkIssue : SUCCESS_STATUS.bulkIssuePartial, body: { results } };
    },
  },
];
