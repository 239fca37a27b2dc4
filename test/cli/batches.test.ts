// `certsvc batches archive|unarchive`: an archived batch refuses new certificates, and the
// service's error says to unarchive it; this is the command that does, from the CLI.
import fs from 'node:fs';
import path from 'node:path';
import { cliWorld, runCli } from '../support/cli';

jest.setTimeout(60_000);

const world = cliWorld({ rateLimit: false }, 'certsvc-batches-');
const certsvc = (args: string[]) => runCli(args, { CERTSVC_BASE_URL: world.sb.baseUrl, CERTSVC_API_KEY: world.sb.apiKey! });

test('archive, then an issue is refused with "unarchive it"; batches unarchive makes it take certificates again', async () => {
  const batch = JSON.parse((await certsvc(['batches', 'create', '--title', 'Archived', '--design', 'design_classic'])).stdout) as { id: string };
  const archived = await certsvc(['batches', 'archive', batch.id]);
  expect(archived.code).toBe(0);
  expect(JSON.parse(archived.stdout)).toMatchObject({ id: batch.id, status: 'archived' });
  expect(JSON.parse((await certsvc(['batches', 'list', '--status', 'archived'])).stdout).map((b: { id: string }) => b.id)).toContain(batch.id);

  const csv = path.join(world.dir, 'one.csv');
  fs.writeFileSync(csv, 'name,email\nAda Lovelace,ada@example.com\n');
  const refused = await certsvc(['issue', '--batch', batch.id, '--csv', csv]);
  expect(refused.code).toBe(1);
  expect(refused.stdout + refused.stderr).toMatch(/BATCH_ARCHIVED|archived/);
  expect(refused.stdout + refused.stderr).toMatch(/unarchive/);
  expect(world.sb.controls.certificates(batch.id)).toHaveLength(0);

  const unarchived = await certsvc(['batches', 'unarchive', batch.id]);
  expect(unarchived.code).toBe(0);
  expect(JSON.parse(unarchived.stdout)).toMatchObject({ id: batch.id, status: 'active' });
  const issued = await certsvc(['issue', '--batch', batch.id, '--csv', csv]);
  expect(issued.code).toBe(0);
  expect(world.sb.controls.certificates(batch.id).map((c) => c.email)).toEqual(['ada@example.com']);
});

test('unarchiving an active batch prints the service\'s CONFLICT and exits 1; no batch id is a usage error (exit 2)', async () => {
  const batch = JSON.parse((await certsvc(['batches', 'create', '--title', 'Active', '--design', 'design_classic'])).stdout) as { id: string };
  const conflict = await certsvc(['batches', 'unarchive', batch.id]);
  expect(conflict.code).toBe(1);
  expect(conflict.stderr).toMatch(/^certsvc: /);
  expect((await certsvc(['batches', 'unarchive'])).code).toBe(2);
});
