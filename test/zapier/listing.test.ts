// What Zapier's publishing reads besides the code: the logo, the CHANGELOG that
// `zapier-platform promote` sends as release notes (parsed here by the CLI's own reader),
// `npm run register`'s command line, and output items a user maps in the editor (no null in
// a field declared `datetime`; failed and viewed list items carry error / viewer).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { api, app, designCached, recipient, run, setupNock } from './mock-api';

setupNock();
beforeEach(() => designCached());

const APP_DIR = path.resolve(__dirname, '../../zapier');
const { version } = JSON.parse(fs.readFileSync(path.join(APP_DIR, 'package.json'), 'utf8')) as { version: string };

describe('logo', () => {
  it('assets/logo-256.png is a 256×256 PNG (read from its IHDR chunk)', () => {
    const png = fs.readFileSync(path.join(APP_DIR, 'assets', 'logo-256.png'));
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.toString('latin1', 12, 16)).toBe('IHDR'); // the first chunk, as the format requires
    expect({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }).toEqual({ width: 256, height: 256 });
    expect(png[25]).toBe(6); // colour type 6: RGBA, so the background is transparent
  });
});

describe('CHANGELOG.md', () => {
  // zapier-platform-cli 19.1.0's reader, the one `promote` calls (src/oclif/commands/promote.js).
  const cliDir = path.dirname(require.resolve('zapier-platform-cli/package.json'));
  const { getVersionChangelog } = require(path.join(cliDir, 'src', 'utils', 'changelog.js')) as {
    getVersionChangelog: (version: string, appDir?: string) => Promise<{
      changelog: string;
      appMetadata?: Array<{ app_change_type: string; action_type: string; action_key: string }>;
    }>;
  };

  it(`has a section for package.json's version (${version}), as promote reads it`, async () => {
    const { changelog } = await getVersionChangelog(version, APP_DIR);
    expect(changelog.length).toBeGreaterThan(100);
    // The newest version comes first.
    const headings = fs.readFileSync(path.join(APP_DIR, 'CHANGELOG.md'), 'utf8').match(/^## .+$/gm) ?? [];
    expect(headings[0]).toBe(`## ${version}`);
  });

  it('names only steps that exist, with their type (promote sends them as feature updates and fixes)', async () => {
    const { appMetadata = [] } = await getVersionChangelog(version, APP_DIR);
    expect(appMetadata.length).toBeGreaterThan(0);
    const kinds: Record<string, Record<string, unknown>> = { read: app.triggers, write: app.creates, search: app.searches };
    for (const m of appMetadata) {
      expect({ ...m, exists: m.action_key in kinds[m.action_type] }).toEqual({ ...m, exists: true });
    }
    for (const m of appMetadata) expect(['FEATURE_UPDATE', 'BUGFIX']).toContain(m.app_change_type);
  });

  it('the CLI would not find a version that has no section', async () => {
    await expect(getVersionChangelog('99.98.97', APP_DIR)).resolves.toEqual({ changelog: '' });
  });
});

describe('npm run register', () => {
  it('registers with the description, homepage and category of publisher.json', () => {
    const publisher = JSON.parse(fs.readFileSync(path.join(APP_DIR, '..', 'publisher.json'), 'utf8'));
    const printed = spawnSync(process.execPath, [path.join(APP_DIR, 'scripts', 'register.js'), '--print'], { encoding: 'utf8' });
    expect(printed.status).toBe(0);
    const command: string[] = JSON.parse(printed.stdout);
    const flag = (name: string) => command[command.indexOf(name) + 1];
    expect(command.slice(0, 3)).toEqual(['zapier-platform', 'register', publisher.name]);
    expect(flag('--desc')).toBe(publisher.description);
    expect(flag('--url')).toBe(publisher.homepage);
    expect(flag('--category')).toBe('education');
    expect(publisher.description.length).toBeGreaterThan(0);
    expect(publisher.description.length).toBeLessThanOrEqual(140); // the CLI's MAX_DESCRIPTION_LENGTH
  });
});

/** Every value at a key declared `datetime` (one `__` level, as Zapier flattens). */
function dateValues(item: Record<string, unknown>, fields: Array<{ key: string; type?: string }>) {
  return fields
    .filter((f) => f.type === 'datetime')
    .map((f) => {
      const [head, child] = f.key.split('__');
      const parent = item[head];
      const value = child === undefined ? parent : parent && typeof parent === 'object' ? (parent as Record<string, unknown>)[child] : undefined;
      return { key: f.key, value };
    })
    .filter(({ value }) => value !== undefined);
}

describe('no null in a field declared datetime', () => {
  const ops = [
    ...Object.entries(app.triggers).map(([k, op]) => [`triggers.${k}`, op] as const),
    ...Object.entries(app.creates).map(([k, op]) => [`creates.${k}`, op] as const),
    ...Object.entries(app.searches).map(([k, op]) => [`searches.${k}`, op] as const),
  ];

  it.each(ops)('%s: the sample has a real date in every datetime field it has', (_name, op) => {
    for (const { key, value } of dateValues(op.operation.sample, op.operation.outputFields)) {
      expect({ key, date: Number.isNaN(Date.parse(String(value))) ? value : 'valid' }).toEqual({ key, date: 'valid' });
    }
  });

  const UNSET = { expiryDate: null, emailSentAt: null };
  const TRIGGERS = ['certificate_issued', 'certificate_sent', 'certificate_failed', 'certificate_viewed'];

  it.each(TRIGGERS)('%s: performList items leave unset dates out', async (key) => {
    api().get('/api/v1/batches/batch_1/recipients').query(true).reply(200, { data: [recipient(UNSET)], nextCursor: null });
    const [item] = await run<Array<Record<string, unknown>>>(`triggers.${key}.operation.performList`, { inputData: { batch_id: 'batch_1' } });
    const dates = dateValues(item, app.triggers[key].operation.outputFields);
    expect(dates.map((d) => d.key)).toEqual(expect.arrayContaining(['createdAt', 'issueDate', 'recipientCreatedAt']));
    for (const { key: field, value } of dates) expect({ field, value }).toEqual({ field, value: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(item).not.toHaveProperty('expiryDate');
    expect(item).not.toHaveProperty('emailSentAt');
  });

  it.each([
    ['creates.update_recipient', 'patch', '/api/v1/batches/batch_1/recipients/rec_1', { batch_id: 'batch_1', recipient_id: 'rec_1', name: 'Ada' }],
    ['creates.send_certificate', 'post', '/api/v1/batches/batch_1/recipients/rec_1/send', { batch_id: 'batch_1', recipient_id: 'rec_1' }],
    ['searches.find_certificate', 'get', '/api/v1/certificates/CERT-1', { certificate_id: 'CERT-1' }],
    ['searches.find_certificate_by_token', 'get', '/api/v1/certificates/by-token/tok_1', { share_token: 'tok_1' }],
    ['creates.issue_certificate', 'post', '/api/v1/batches/batch_1/recipients', { batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com' }],
  ] as const)('%s leaves unset dates out of what the service returned', async (name, method, urlPath, inputData) => {
    api()[method](urlPath).reply(200, recipient(UNSET));
    const result = await run<Record<string, unknown> | Array<Record<string, unknown>>>(`${name}.operation.perform`, { inputData });
    const item = Array.isArray(result) ? result[0] : result;
    expect(item).toMatchObject({ id: 'rec_1', issueDate: expect.any(String) });
    expect(item).not.toHaveProperty('expiryDate');
    expect(item).not.toHaveProperty('emailSentAt');
  });
});

it('creates.issue_certificate with Skip If Already Issued leaves unset dates out too', async () => {
  api().get('/api/v1/batches/batch_1/recipients').query(true).reply(200, { data: [], nextCursor: null });
  api().post('/api/v1/batches/batch_1/recipients').reply(201, recipient({ expiryDate: null, emailSentAt: null }));
  const item = await run<Record<string, unknown>>('creates.issue_certificate.operation.perform', {
    inputData: { batch_id: 'batch_1', name: 'Ada', email: 'ada@example.com', skip_existing: 'true' },
  });
  expect(item).toMatchObject({ id: 'rec_1', skipped: false });
  expect(item).not.toHaveProperty('expiryDate');
  expect(item).not.toHaveProperty('emailSentAt');
});

describe('failed and viewed list items carry the fields a delivery has', () => {
  it('certificate_failed: `error` (empty: the list does not say why the email failed)', async () => {
    api().get('/api/v1/batches/batch_1/recipients').query({ limit: '10', emailStatus: 'failed' }).reply(200, { data: [recipient({ emailStatus: 'failed' })] });
    const [item] = await run<Array<Record<string, unknown>>>('triggers.certificate_failed.operation.performList', { inputData: { batch_id: 'batch_1' } });
    expect(item).toMatchObject({ error: '' });
    expect(app.triggers.certificate_failed.operation.sample).toHaveProperty('error');
  });

  it('certificate_viewed: `viewer` with every key of the sample, viewedAt = the item\'s time', async () => {
    const r = recipient({ createdAt: '2025-06-03T10:00:00.000Z' });
    api().get('/api/v1/batches/batch_1/recipients').query({ limit: '10' }).reply(200, { data: [r] });
    const [item] = await run<Array<Record<string, unknown>>>('triggers.certificate_viewed.operation.performList', { inputData: { batch_id: 'batch_1' } });
    const sampleViewer = app.triggers.certificate_viewed.operation.sample.viewer as Record<string, unknown>;
    expect(Object.keys(item.viewer as object).sort()).toEqual(Object.keys(sampleViewer).sort());
    expect(item.viewer).toEqual({ viewedAt: '2025-06-03T10:00:00.000Z', userAgent: '', referer: '', ip: '' });
    expect(item.createdAt).toBe('2025-06-03T10:00:00.000Z');
    // Each flattened viewer field is declared, so the editor offers it for mapping.
    const declared = (app.triggers.certificate_viewed.operation.outputFields as Array<{ key: string }>).map((f) => f.key);
    for (const k of Object.keys(sampleViewer)) expect(declared).toContain(`viewer__${k}`);
  });
});
