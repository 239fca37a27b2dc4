// The SDK README's export list names every runtime export of the package, and names nothing it
// does not export: an export added or removed without the README fails here.
import fs from 'node:fs';
import path from 'node:path';
import * as sdk from '@certificate-service/sdk';

const README = fs.readFileSync(path.join(__dirname, '../../shared/sdk/README.md'), 'utf8');
const section = README.slice(README.indexOf('- **Client:**'), README.indexOf('**Links:**'));
const named = new Set([...section.matchAll(/`([A-Za-z_]\w*)`/g)].map((m) => m[1]));
/** Names in the list that are types only (no runtime value to find). */
const TYPES = ['IssueItem', 'IssueOutcome', 'IssueManyOptions', 'PollState', 'WebhookEvent', 'DeliveryStore'];

test('every runtime export is in the README list', () => {
  expect(section.length).toBeGreaterThan(500);
  expect(Object.keys(sdk).filter((name) => !named.has(name))).toEqual([]);
});

test('every name in the list is exported (or is one of its types)', () => {
  expect([...named].filter((name) => !(name in sdk) && !TYPES.includes(name))).toEqual([]);
});
