// Each endpoint is named once (client/endpoints.ts): paths are built from its route template,
// and no other module of the core spells a route out again.
import fs from 'node:fs';
import path from 'node:path';
import { ENDPOINTS } from '../../shared/sdk/src/client/endpoints';
import { pathOf } from '../../shared/sdk/src/request';
import { scripted } from './scripted';

const SRC = path.resolve(__dirname, '../../shared/sdk/src');

test('a path is the route with each id checked, trimmed and encoded', () => {
  expect(pathOf(ENDPOINTS.getRecipient, { batchId: ' b 1 ', recipientId: 'r/1' })).toBe('/batches/b%201/recipients/r%2F1');
  expect(() => pathOf(ENDPOINTS.getRecipient, { batchId: 'b1' })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', field: 'recipientId' }));
  expect(pathOf(ENDPOINTS.listBatches)).toBe('/batches');
});

test('no module but the endpoint table spells a route of the API', () => {
  const files = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
  const routeLiteral = /['"`]((GET|POST|PATCH|DELETE) )?\/(auth|batches|designs|certificates|webhooks)\b/;
  const spelled = files(SRC)
    .filter((f) => !f.endsWith(path.join('client', 'endpoints.ts')))
    .flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').map((line, i) => [path.relative(SRC, f), i + 1, line] as const))
    .filter(([, , line]) => routeLiteral.test(line) && !/^\s*(\/\/|\/\*|\*)/.test(line));
  expect(spelled).toEqual([]);
});

test('every list checks its limit before any request (subscriptions too)', async () => {
  const s = scripted([]);
  for (const call of [() => s.client.listSubscriptions({ limit: 500 }), () => s.client.listDesigns({ limit: 0 }), () => s.client.listBatches({ limit: 101 }), () => s.client.listRecipients('b1', { limit: 1.5 })]) {
    await expect(call()).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'limit' });
  }
  expect(s.requests).toHaveLength(0);
});
