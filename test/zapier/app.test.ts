// The app definition as a whole: every operation registered under the key that is its
// file name, snake_case keys, the wording Zapier's review asks for, and no global patching.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { recipientField } from '../../zapier/src/lib/inputs';
import { api, app, run, setupNock } from './mock-api';

setupNock();

const SRC = path.resolve(__dirname, '../../zapier/src');
const files = (dir: string) =>
  fs
    .readdirSync(path.join(SRC, dir))
    .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();

describe('app definition', () => {
  it.each([
    ['triggers', app.triggers],
    ['creates', app.creates],
    ['searches', app.searches],
  ])('registers every %s file under its file name as the key', (dir, map) => {
    expect(Object.keys(map).sort()).toEqual(files(dir));
    for (const [key, op] of Object.entries(map)) expect(op.key).toBe(key);
  });

  it('uses snake_case keys for operations and their input fields', () => {
    const ops = [...Object.values(app.triggers), ...Object.values(app.creates), ...Object.values(app.searches)];
    for (const op of ops) {
      expect(op.key).toMatch(/^[a-z][a-z0-9_]*$/);
      // Dynamic fields (functions) are the design's variables, keyed `variable__<its name>` (variables.test.ts).
      const fields = (op.operation.inputFields ?? [])
        .filter((f: unknown) => typeof f !== 'function')
        .flatMap((f: { key: string; children?: Array<{ key: string }> }) => [f, ...(f.children ?? [])]);
      for (const field of fields) expect(field.key).toMatch(/^[a-z][a-z0-9_]*$/);
    }
  });

  it('words visible operations the way Zapier reviews them', () => {
    const visible = (map: Record<string, Record<string, any>>) => Object.values(map).filter((op) => !op.display.hidden);
    for (const t of visible(app.triggers)) expect(t.display.description).toMatch(/^Triggers when .+\.$/);
    // An action opens with what it does, a verb in the third person ("Creates …", "Queues …"): the rule, not a list of verbs a new action must join.
    for (const c of visible(app.creates)) expect(c.display.description).toMatch(/^(?!This )[A-Z][a-z]+s .+\.$/);
    for (const s of visible(app.searches)) expect(s.display.description).toMatch(/^Finds .+\.$/);
    for (const op of [...visible(app.triggers), ...visible(app.creates), ...visible(app.searches)]) {
      // Title Case labels, a singular noun, and a sample + output fields for the editor.
      expect(op.display.label).toMatch(/^[A-Z][A-Za-z]*( ([A-Z][A-Za-z]*|by|in|or|of))*$/);
      expect(op.noun).toMatch(/^[A-Z][a-z]+$/);
      expect(op.operation.sample).toBeTruthy();
      expect(op.operation.outputFields.length).toBeGreaterThan(0);
      for (const f of op.operation.outputFields) expect(f.label).toBeTruthy();
    }
  });

  it('hides the dropdown triggers', () => {
    expect(Object.values(app.triggers).filter((t) => t.display.hidden).map((t) => t.key).sort()).toEqual(['archived_batch_list', 'batch_list', 'design_list', 'recipient_list']);
  });

  // The one vocabulary both platforms use (root README, "Operations on both platforms"):
  // the keys stay as they were, so live Zaps keep working; only the labels changed.
  it.each([
    ['creates', 'create_batch', 'Create Batch'],
    ['creates', 'archive_batch', 'Archive Batch'],
    ['creates', 'unarchive_batch', 'Unarchive Batch'],
    ['creates', 'issue_certificate', 'Issue Certificate'],
    ['creates', 'issue_certificates_bulk', 'Issue Certificates in Bulk'],
    ['creates', 'update_recipient', 'Update Certificate'],
    ['creates', 'delete_recipient', 'Delete Certificate'],
    ['creates', 'send_certificate', 'Send Certificate'],
    ['searches', 'find_certificate', 'Find Certificate by Certificate ID'],
    ['searches', 'find_certificate_by_token', 'Find Certificate by Share Token or URL'],
    ['searches', 'find_recipient', 'Find Certificate by Email'],
    ['triggers', 'certificate_issued', 'Certificate Issued'],
    ['triggers', 'certificate_sent', 'Certificate Sent'],
    ['triggers', 'certificate_failed', 'Certificate Failed'],
    ['triggers', 'certificate_viewed', 'Certificate Viewed'],
    ['triggers', 'new_certificate', 'New Certificate'],
    ['triggers', 'certificate_email_sent', 'Certificate Email Sent'],
    ['triggers', 'certificate_email_failed', 'Certificate Email Failed'],
  ] as const)('%s.%s is labelled "%s"', (kind, key, label) => {
    expect(app[kind][key].display.label).toBe(label);
  });

  it('calls the issued thing a certificate in every visible label and description, never a recipient', () => {
    const visible = [...Object.values(app.triggers), ...Object.values(app.creates), ...Object.values(app.searches)].filter((op) => !op.display.hidden);
    for (const op of visible) {
      expect(op.display.label).not.toMatch(/recipient/i);
      expect(op.noun).not.toBe('Recipient');
    }
    expect(app.searchOrCreates.find_recipient.display.label).toBe('Find or Issue Certificate');
    // the certificate picker has the n8n node's name for the same field; its key is unchanged.
    // Every operation that asks for a certificate (a recipient_id field) asks with the one picker.
    const asking = visible.filter((op) => (op.operation.inputFields ?? []).some((f: { key?: string }) => f.key === 'recipient_id'));
    expect(asking.length).toBeGreaterThan(0);
    for (const op of asking) expect([op.key, (op.operation.inputFields as Array<{ key?: string }>).find((f) => f.key === 'recipient_id')]).toEqual([op.key, recipientField]);
    expect(recipientField.label).toBe('Certificate');
  });

  const inputFields = (op: Record<string, any>): Array<Record<string, unknown>> => op.operation.inputFields ?? [];
  const actions = () => [...Object.values(app.creates), ...Object.values(app.searches)];

  it('gives every search-powered field a dropdown as well (Zapier check D014)', () => {
    const searchPowered = actions().flatMap((op) => inputFields(op).filter((f) => f.search));
    expect(searchPowered.length).toBeGreaterThan(0);
    for (const field of searchPowered) expect(field).toMatchObject({ dynamic: expect.any(String) });
  });

  it('offers a dropdown for every ID a step asks for (Zapier check D004)', () => {
    for (const op of actions()) {
      for (const field of inputFields(op).filter((f) => /_id$/.test(String(f.key)))) {
        expect({ step: op.key, field: field.key, dynamic: field.dynamic }).toEqual({ step: op.key, field: field.key, dynamic: expect.any(String) });
      }
    }
  });

  it('points every dropdown at a hidden trigger that exists and returns the value and label keys', () => {
    const fields = [...Object.values(app.triggers), ...actions()].flatMap((op) => inputFields(op).filter((f) => f.dynamic));
    for (const field of fields) {
      const [triggerKey, valueKey, labelKey] = String(field.dynamic).split('.');
      const trigger = app.triggers[triggerKey];
      expect(trigger?.display.hidden).toBe(true);
      expect(trigger.operation.sample).toHaveProperty(valueKey);
      expect(trigger.operation.sample).toHaveProperty(labelKey);
    }
  });

  it('never patches http.request process-wide (flags.skipHttpPatch)', async () => {
    const before = http.request;
    api().get('/api/v1/certificates/CERT-1').reply(404, { error: 'NOT_FOUND', message: 'nope', detail: {} });
    await run('searches.find_certificate.operation.perform', { inputData: { certificate_id: 'CERT-1' } });
    expect(http.request).toBe(before);
    expect((http as unknown as { patchedByZapier?: boolean }).patchedByZapier).toBeUndefined();
  });
});
