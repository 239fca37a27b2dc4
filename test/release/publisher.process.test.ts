// The publisher's identity: one file (publisher.json), stamped into the n8n and Zapier builds
// (dist/, run by `npm test` before jest) and into each npm package's package.json at pack time
// (prepack, undone by postpack: a build or a pack leaves the tree as it was), and
// `npm run release:check` refusing placeholders and unstamped packages.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const release = require('../../release/publisher.js') as {
  ROOT: string;
  FIELDS: string[];
  N8N_CODEX_DOCS: Record<string, string>;
  readPublisher(file?: string): Record<string, string>;
  publisherProblems(p: Record<string, unknown>): string[];
  docsLink(p: Record<string, string>, dir: string, anchor: string): string;
  codexResources(p: Record<string, string>, anchor: string): unknown;
  packageFields(p: Record<string, string>, dir: string): Record<string, unknown>;
  stampPackageJson(dir: string, p: Record<string, string>, root: string): boolean;
  NPM_PACKAGES: string[];
  absoluteLinks(markdown: string, p: Record<string, string>, dir: string): string;
  prepack(dir: string, p: Record<string, string>, root: string, owner: number): void;
  postpack(dir: string, root: string): void;
  LOCK: string;
};

const ROOT = release.ROOT;
const publisher = release.readPublisher(path.join(ROOT, 'publisher.json'));
const real = {
  name: 'Certificate Service',
  description: 'Issue and look up certificates.',
  author: 'Acme Certificates Ltd',
  supportEmail: 'support@acme-certificates.io',
  homepage: 'https://acme-certificates.io',
  repository: 'https://github.com/acme/certificate-service-connectors',
  docsUrl: 'https://docs.acme-certificates.io/connectors',
};
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'publisher-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function check(publisherFile?: string) {
  const env = { ...process.env, ...(publisherFile ? { CERTSVC_PUBLISHER: publisherFile } : {}) };
  const result = spawnSync(process.execPath, [path.join(ROOT, 'release', 'check.js')], { cwd: ROOT, env, encoding: 'utf8' });
  return { status: result.status, lines: result.stdout.trim().split('\n') };
}

describe('publisherProblems', () => {
  it('accepts a complete identity', () => {
    expect(release.publisherProblems(real)).toEqual([]);
  });

  it.each([
    ['supportEmail', 'connectors@example.com', /"supportEmail" is a placeholder/],
    ['supportEmail', 'help@acme.test', /"supportEmail" is a placeholder/],
    ['supportEmail', 'not an email', /"supportEmail" is not an email address/],
    ['homepage', 'https://certificates.example.com', /"homepage" is a placeholder/],
    ['homepage', 'https://example.org', /"homepage" is a placeholder/],
    ['homepage', 'http://acme-certificates.io', /"homepage" must use https:\/\//],
    ['docsUrl', 'https://docs.acme-certificates.io/', /"docsUrl" must not end with "\/"/],
    ['repository', 'https://github.com/<owner>/<repo>', /"repository" is a placeholder/],
    ['author', 'TODO', /"author" is a placeholder/],
    ['author', 'Your Company', /"author" is a placeholder/],
    ['description', '', /"description" is missing/],
  ])('names %s = %p', (field, value, problem) => {
    const problems = release.publisherProblems({ ...real, [field]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });
});

describe('the builds stamp publisher.json', () => {
  it('into each npm package at pack time: the tarball carries the identity, the package.json on disk is unchanged', () => {
    const file = path.join(tmp, 'identity.json');
    fs.writeFileSync(file, JSON.stringify(real));
    for (const dir of release.NPM_PACKAGES) {
      const manifest = path.join(ROOT, dir, 'package.json');
      const before = fs.readFileSync(manifest, 'utf8');
      const readmeBefore = fs.readFileSync(path.join(ROOT, dir, 'README.md'), 'utf8');
      const out = path.join(tmp, dir.replace('/', '-'));
      fs.mkdirSync(out);
      // --ignore-scripts would skip prepack too; this runs the package's own lifecycle, as `npm publish` does.
      const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: path.join(ROOT, dir), env: { ...process.env, CERTSVC_PUBLISHER: file }, encoding: 'utf8' }));
      execFileSync('tar', ['-xzf', path.join(out, packed.filename), '-C', out, 'package/package.json']);
      execFileSync('tar', ['-xzf', path.join(out, packed.filename), '-C', out, 'package/README.md']);
      const inside = JSON.parse(fs.readFileSync(path.join(out, 'package/package.json'), 'utf8'));
      // Its README's links work on the registry's page: absolute, into the publisher's repository.
      const links = [...fs.readFileSync(path.join(out, 'package/README.md'), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
      expect(links.filter((l) => !l.startsWith('#') && !l.startsWith(`${real.repository}/`) && !/^https:\/\/(?!github\.com\/certificate-service\/)/.test(l))).toEqual([]);
      expect(inside).toMatchObject(release.packageFields(real, dir));
      expect(inside.author).toEqual({ name: real.author, email: real.supportEmail });
      expect(fs.readFileSync(manifest, 'utf8')).toBe(before);
      expect(fs.readFileSync(path.join(ROOT, dir, 'README.md'), 'utf8')).toBe(readmeBefore);
      expect(fs.existsSync(path.join(ROOT, dir, '.package.json.prepack'))).toBe(false);
      expect(fs.existsSync(path.join(ROOT, dir, '.README.md.prepack'))).toBe(false);
      expect(fs.existsSync(path.join(ROOT, dir, release.LOCK))).toBe(false);
    }
  }, 120_000);

  it('into the n8n credential (as n8n loads it) and the codex files', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { CertificateServiceApi } = require(path.join(ROOT, 'n8n/dist/credentials/CertificateServiceApi.credentials.js'));
    expect(new CertificateServiceApi().documentationUrl).toBe(`${publisher.docsUrl}/n8n#credentials`);
    for (const [codex, anchor] of Object.entries(release.N8N_CODEX_DOCS)) {
      const json = JSON.parse(fs.readFileSync(path.join(ROOT, 'n8n/dist', codex), 'utf8'));
      expect(json.resources.primaryDocumentation[0].url).toBe(`${publisher.docsUrl}/n8n#${anchor}`);
      expect(json.resources.credentialDocumentation[0].url).toBe(`${publisher.docsUrl}/n8n#credentials`);
    }
  });

  it('into the Zapier app (as Zapier loads it): the API key help links to the docs', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const app = require(path.join(ROOT, 'zapier/index.js'));
    const apiKey = app.authentication.fields.find((f: { key: string }) => f.key === 'apiKey');
    expect(apiKey.helpText).toContain(`(${publisher.docsUrl}/zapier#authentication)`);
  });

  it('a README\'s relative links become absolute: folders to tree, files to blob, images to raw; anchors and URLs stay', () => {
    const md = '[CLI](../cli#readme) [log](CHANGELOG.md) ![shot](docs/a.png) [top](#install) [npm](https://www.npmjs.com/x)';
    expect(release.absoluteLinks(md, real, 'shared/sdk')).toBe(
      '[CLI](https://github.com/acme/certificate-service-connectors/tree/main/shared/cli#readme) ' +
        '[log](https://github.com/acme/certificate-service-connectors/blob/main/shared/sdk/CHANGELOG.md) ' +
        '![shot](https://github.com/acme/certificate-service-connectors/raw/main/shared/sdk/docs/a.png) [top](#install) [npm](https://www.npmjs.com/x)',
    );
  });

  it('stamping a package.json sets the four fields, keeps every other key in its place, and is idempotent', () => {
    const dir = path.join(tmp, 'pkg');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', version: '1.0.0', homepage: 'https://old.example.com', scripts: { build: 'b' } }));
    expect(release.stampPackageJson('pkg', real, tmp)).toBe(true);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    expect(Object.keys(pkg)).toEqual(['name', 'version', 'homepage', 'scripts', 'author', 'repository', 'bugs']);
    expect(pkg).toMatchObject({
      homepage: 'https://docs.acme-certificates.io/connectors/pkg#readme',
      author: { name: 'Acme Certificates Ltd', email: 'support@acme-certificates.io' },
      repository: { type: 'git', url: 'git+https://github.com/acme/certificate-service-connectors.git', directory: 'pkg' },
      bugs: { url: 'https://github.com/acme/certificate-service-connectors/issues', email: 'support@acme-certificates.io' },
    });
    expect(release.stampPackageJson('pkg', real, tmp)).toBe(false);
  });
});

describe('a pack that fails leaves every tracked file as it was', () => {
  const DIR = 'shared/sdk';
  const files = ['package.json', 'README.md'];
  const snapshot = (root = ROOT) => files.map((f) => fs.readFileSync(path.join(root, DIR, f), 'utf8'));
  const leftovers = (root = ROOT) => ['.package.json.prepack', '.README.md.prepack', release.LOCK].filter((f) => fs.existsSync(path.join(root, DIR, f)));
  const identity = () => {
    const file = path.join(tmp, 'failing-identity.json');
    fs.writeFileSync(file, JSON.stringify(real));
    return file;
  };
  const pack = (destination: string) =>
    new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      const child = spawn('npm', ['pack', '--json', '--pack-destination', destination], { cwd: path.join(ROOT, DIR), env: { ...process.env, CERTSVC_PUBLISHER: identity() } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  async function settled(before: string[]): Promise<void> {
    // npm skips postpack when the pack fails; prepack's watcher restores once npm has exited.
    const deadline = Date.now() + 10_000;
    while ((leftovers().length || snapshot().join() !== before.join()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }

  it('--pack-destination that does not exist: npm fails after prepack, and the stamped files are put back; the next pack is right', async () => {
    const before = snapshot();
    const failed = await pack(path.join(tmp, 'does-not-exist'));
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/ENOENT/);
    await settled(before);
    expect(snapshot()).toEqual(before);
    expect(leftovers()).toEqual([]);

    const out = path.join(tmp, 'after-failure');
    fs.mkdirSync(out);
    const ok = await pack(out);
    expect(ok.code).toBe(0);
    const [packed] = JSON.parse(ok.stdout);
    execFileSync('tar', ['-xzf', path.join(out, packed.filename), '-C', out, 'package/package.json']);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'package/package.json'), 'utf8'))).toMatchObject(release.packageFields(real, DIR));
    expect(snapshot()).toEqual(before);
    expect(leftovers()).toEqual([]);
  }, 120_000);

  it('two packs of one package at once: each tarball is stamped, and the tree is as it was', async () => {
    const before = snapshot();
    const outs = ['at-once-1', 'at-once-2'].map((d) => path.join(tmp, d));
    for (const out of outs) fs.mkdirSync(out);
    const results = await Promise.all(outs.map(pack));
    for (const [i, result] of results.entries()) {
      expect(result.code).toBe(0);
      const [packed] = JSON.parse(result.stdout);
      execFileSync('tar', ['-xzf', path.join(outs[i], packed.filename), '-C', outs[i], 'package/package.json', 'package/README.md']);
      expect(JSON.parse(fs.readFileSync(path.join(outs[i], 'package/package.json'), 'utf8'))).toMatchObject(release.packageFields(real, DIR));
      expect(fs.readFileSync(path.join(outs[i], 'package/README.md'), 'utf8')).toContain(`${real.repository}/`);
    }
    expect(snapshot()).toEqual(before);
    expect(leftovers()).toEqual([]);
  }, 120_000);

  it('a pack whose npm died with its watcher: the next pack puts the committed files back first, never backing up stamped ones', () => {
    const root = path.join(tmp, 'died');
    fs.mkdirSync(path.join(root, DIR), { recursive: true });
    for (const f of files) fs.copyFileSync(path.join(ROOT, DIR, f), path.join(root, DIR, f));
    const committed = snapshot(root);
    const dead = spawnSync('true').pid!; // a process that has ended
    // What such a pack leaves: the backups, the stamped files, and a lock naming its npm.
    release.prepack(DIR, real, root, process.pid);
    fs.writeFileSync(path.join(root, DIR, release.LOCK), String(dead));
    expect(snapshot(root)).not.toEqual(committed);

    release.prepack(DIR, real, root, process.pid);
    release.postpack(DIR, root);
    expect(snapshot(root)).toEqual(committed);
    expect(leftovers(root)).toEqual([]);
  });

  it('a dist holding an output no source builds (tsc -b leaves it after a rename): the pack refuses before stamping, naming it', () => {
    const root = path.join(tmp, 'stale');
    const write = (file: string) => {
      fs.mkdirSync(path.dirname(path.join(root, DIR, file)), { recursive: true });
      fs.writeFileSync(path.join(root, DIR, file), '');
    };
    fs.mkdirSync(path.join(root, DIR), { recursive: true });
    for (const f of files) fs.copyFileSync(path.join(ROOT, DIR, f), path.join(root, DIR, f));
    for (const f of ['src/index.ts', 'src/webhooks/verify.ts', 'dist/index.js', 'dist/index.d.ts', 'dist/webhooks/verify.js', 'dist/standalone.js', 'dist/webhooks/old.d.ts']) write(f);
    const committed = snapshot(root);

    expect(() => release.prepack(DIR, real, root, process.pid)).toThrow(`${DIR}/dist holds dist/standalone.js, dist/webhooks/old.d.ts, which no file in src/ builds`);
    expect(snapshot(root)).toEqual(committed);
    expect(leftovers(root)).toEqual([]);

    for (const f of ['dist/standalone.js', 'dist/webhooks/old.d.ts']) fs.rmSync(path.join(root, DIR, f));
    release.prepack(DIR, real, root, process.pid);
    expect(snapshot(root)).not.toEqual(committed);
    release.postpack(DIR, root);
    expect(snapshot(root)).toEqual(committed);
  });
});

describe('release/check.js (npm run release:check without its build)', () => {
  it("on this repository: fails exactly while publisher.json holds placeholders, and finds every build stamped", () => {
    const { status, lines } = check();
    const expected = release.publisherProblems(publisher).map((p) => `publisher.json: ${p}`);
    expect(lines.slice(0, -1)).toEqual(expected);
    expect(status).toBe(expected.length ? 1 : 0);
    // Today's file still has the example.com placeholders; the publisher fills them in.
    expect(expected.join('\n')).toMatch(/"supportEmail" is a placeholder \(connectors@example\.com\)/);
  });

  it('a package whose pack would not stamp the identity is named', () => {
    const root = path.join(tmp, 'unwired');
    for (const dir of release.NPM_PACKAGES) {
      fs.mkdirSync(path.join(root, dir), { recursive: true });
      const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8'));
      if (dir === 'shared/cli') delete pkg.scripts.prepack;
      fs.writeFileSync(path.join(root, dir, 'package.json'), JSON.stringify(pkg));
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { stampProblems } = require('../../release/check.js') as { stampProblems(p: Record<string, string>, root: string): string[] };
    const problems = stampProblems(real, root).filter((p) => p.includes('package.json'));
    expect(problems).toEqual(['shared/cli/package.json: no "prepack" script stamping publisher.json']);
  });

  it('with a complete identity that the builds have not stamped yet: names each build that does not carry it', () => {
    const file = path.join(tmp, 'publisher.json');
    fs.writeFileSync(file, JSON.stringify(real));
    const { status, lines } = check(file);
    expect(status).toBe(1);
    expect(lines.filter((l) => l.startsWith('publisher.json'))).toEqual([]);
    expect(lines).toContain('n8n/dist/credentials/CertificateServiceApi.credentials.js: documentationUrl is not stamped');
    expect(lines).toContain('n8n/dist/nodes/CertificateService/CertificateService.node.json: documentation links are not stamped');
    expect(lines).toContain('zapier/dist/index.js: the authentication help link is not stamped');
    expect(lines.at(-1)).toMatch(/^release:check: \d+ problem\(s\); fill in publisher.json, then npm run build$/);
  });
});
