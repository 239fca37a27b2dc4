/**
 * What n8n/README.md tells an n8n admin to set is what the installed n8n 2.41.1 reads: its dist is
 * loaded, not a copy of its names. n8n 3.0 is not installed here (3.0 runs only from its Docker
 * image): its new default for unverified packages is checked as 2.41.1's own 3.0 migration rule
 * (`modules/breaking-changes/rules/v3/unverified-packages.rule.js`) states it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureN8nInstalled } from './harness';
import { PACKAGE_DIR } from './package-setup';

const README = fs.readFileSync(path.join(PACKAGE_DIR, 'README.md'), 'utf8');
const n8nRoot = path.join(ensureN8nInstalled({ quiet: true }), 'node_modules');
/** A module of the installed n8n, resolved the way n8n resolves it. */
const load = (request: string) =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(require.resolve(request, { paths: [path.join(n8nRoot, 'n8n')] }));

/** Runs `read` with `name` set to `value` (or unset), then puts the environment back. */
function withEnv<T>(name: string, value: string | undefined, read: () => T): T {
  const saved = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  try {
    return read();
  } finally {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
}

/** Every JavaScript file under a folder of the installed n8n. */
function jsFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(dir, f));
}

test('every N8N_ variable the README names is read by the installed n8n (a config @Env or a process.env name)', () => {
  const named = [...new Set(README.match(/\bN8N_[A-Z0-9_]+/g) ?? [])];
  expect(named.length).toBeGreaterThan(0);
  const dists = ['n8n/dist', '@n8n/config/dist', 'n8n-core/dist'].map((d) => path.join(n8nRoot, d));
  const source = dists.flatMap(jsFiles).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
  const unknown = named.filter((name) => !new RegExp(`'${name}'|process\\.env\\.${name}\\b`).test(source));
  expect(unknown).toEqual([]);
});

test("the README's n8n 3.0 setting is the variable n8n's own 3.0 migration check names, and setting it to true clears that check", async () => {
  load('reflect-metadata'); // n8n's config decorators read design:type metadata
  const { Container } = load('@n8n/di');
  const { CommunityPackagesConfig } = load('./dist/modules/community-packages/community-packages.config.js');
  const { UnverifiedPackagesRule } = load('./dist/modules/breaking-changes/rules/v3/unverified-packages.rule.js');

  const rule = new UnverifiedPackagesRule({ enabled: true });
  const { version, description } = rule.getMetadata() as { version: string; description: string };
  expect(version).toBe('v3');
  const [name] = description.match(/\bN8N_[A-Z0-9_]+/) ?? [];
  expect(description).toMatch(new RegExp(`default of ${name} changes to false`));
  expect(README).toContain(`\`${name}=true\``);

  // 2.41.1 reads it: unset it allows unverified packages (the 2.x default), `false` forbids them.
  const unverifiedEnabled = (value: string | undefined) =>
    withEnv(name!, value, () => {
      Container.reset();
      return (Container.get(CommunityPackagesConfig) as { unverifiedEnabled: boolean }).unverifiedEnabled;
    });
  expect(unverifiedEnabled(undefined)).toBe(true);
  expect(unverifiedEnabled('false')).toBe(false);
  expect(unverifiedEnabled('true')).toBe(true);
  Container.reset();

  // The migration report flags an instance that leaves it unset, and not one that sets it to true.
  const affected = (value: string | undefined) => withEnv(name!, value, () => rule.detect()) as Promise<{ isAffected: boolean }>;
  expect((await affected(undefined)).isAffected).toBe(true);
  expect((await affected('true')).isAffected).toBe(false);
});
