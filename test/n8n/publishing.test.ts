/**
 * Publishing (issue 12, item 1): the GitHub Actions workflow that publishes n8n/ with npm
 * provenance, the release scripts and the CHANGELOG. n8n verifies community packages only when
 * they were published from GitHub Actions with provenance; that scan cannot run here, so the
 * workflow file is checked for what it needs.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '../..');
const N8N = path.join(ROOT, 'n8n');
const pkg = JSON.parse(fs.readFileSync(path.join(N8N, 'package.json'), 'utf8'));
const workflow = parse(fs.readFileSync(path.join(ROOT, '.github/workflows/publish.yml'), 'utf8'));

type Step = { name?: string; uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string> };
const job = Object.values(workflow.jobs as Record<string, { permissions: Record<string, string>; steps: Step[] }>)[0];
const runs = job.steps.map((s) => s.run ?? '');
const stepIndex = (re: RegExp) => runs.findIndex((r) => re.test(r));
const rootScripts = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')).scripts as Record<string, string>;

describe('.github/workflows/publish.yml', () => {
	it('runs on version tags of the n8n package only', () => {
		expect(Object.keys(workflow.on)).toEqual(['push']);
		expect(workflow.on.push.branches).toBeUndefined();
		expect(workflow.on.push.tags).toEqual(['n8n-v*.*.*']);
	});

	it('may mint the OIDC token for provenance and only read the repository', () => {
		expect(Object.keys(workflow.jobs)).toHaveLength(1);
		expect(job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
	});

	it('sets up Node 24 with the npm registry and installs the workspace at the root', () => {
		const setup = job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
		expect(setup?.with).toMatchObject({ 'node-version': 24, 'registry-url': 'https://registry.npmjs.org' });
		expect(runs).toContain('npm ci');
	});

	it('checks the tag, builds once while checking the publisher identity, lints, then publishes n8n/ with --provenance, in that order', () => {
		const check = stepIndex(/release\.mjs --check "\$\{GITHUB_REF_NAME\}"/);
		const identity = stepIndex(/^npm run release:check$/);
		const lint = stepIndex(/^npm run lint -w n8n$/);
		const publish = stepIndex(/^npm publish --provenance --access public -w n8n$/);
		expect([check, identity, lint, publish].every((i) => i > stepIndex(/^npm ci$/))).toBe(true);
		expect(check).toBeLessThan(identity);
		expect(identity).toBeLessThan(lint);
		expect(lint).toBeLessThan(publish);
		// release:check is `npm run build && …`: the one build; no step builds again.
		expect(rootScripts['release:check']).toMatch(/^npm run build && /);
		expect(job.steps.filter((s) => /npm run build/.test(s.run ?? ''))).toEqual([]);
		// n8n-node prerelease (prepublishOnly) lets a publish through only in release mode
		expect(job.steps[publish].env?.RELEASE_MODE).toBe('true');
	});
});

describe('release scripts', () => {
	it('a plain npm publish is refused by n8n-node prerelease; release lints, checks the publisher identity (building), and tags', () => {
		expect(pkg.scripts.prepublishOnly).toBe('n8n-node prerelease');
		expect(pkg.scripts.release).toBe('n8n-node lint && npm --prefix .. run release:check && node scripts/release.mjs');
	});

	it('n8n-node prerelease fails outside release mode and passes in it', async () => {
		const bin = path.join(ROOT, 'node_modules/.bin/n8n-node');
		const env = { ...process.env };
		delete env.RELEASE_MODE;
		await expect(promisify(execFile)(bin, ['prerelease'], { cwd: N8N, env })).rejects.toMatchObject({ code: 1 });
		await expect(promisify(execFile)(bin, ['prerelease'], { cwd: N8N, env: { ...env, RELEASE_MODE: 'true' } })).resolves.toBeDefined();
	}, 30_000);

	it('the tag check accepts n8n-v<package.json version> and refuses any other tag', async () => {
		const check = (tag: string) =>
			promisify(execFile)(process.execPath, ['scripts/release.mjs', '--check', tag], { cwd: N8N });
		await expect(check(`n8n-v${pkg.version}`)).resolves.toMatchObject({ stdout: expect.stringContaining('matches') });
		await expect(check('n8n-v99.0.0')).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/does not match/) });
		await expect(check(pkg.version)).rejects.toMatchObject({ code: 1 });
	});
});

describe('CHANGELOG.md', () => {
	it('has a section for the version in package.json', () => {
		const changelog = fs.readFileSync(path.join(N8N, 'CHANGELOG.md'), 'utf8');
		const versions = [...changelog.matchAll(/^## \[?(\d+\.\d+\.\d+[^\]\s]*)/gm)].map((m) => m[1]);
		expect(versions[0]).toBe(pkg.version);
	});
});
