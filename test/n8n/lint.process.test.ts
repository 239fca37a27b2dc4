/**
 * The package as n8n's own rules check it: strict `n8n-node lint` with 0 problems, the
 * verification scanner (@n8n/scan-community-package) on the source and on the packed tarball,
 * and the community-node rules on the built dist. Each runs eslint over the package, the
 * heaviest part of the n8n tests, so `npm test` runs them and `npm run test:unit` leaves them out.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

import { ensurePackageBuilt, PACKAGE_DIR as N8N, packageJson } from '../e2e/n8n/package-setup';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'node_modules/.bin');
const pkg = packageJson();

// `npm test` builds first; run on its own, this builds only when dist is older than the sources.
beforeAll(() => ensurePackageBuilt(), 60_000);

describe('n8n-node lint (strict)', () => {
	it('passes with 0 problems and the stock eslint config', async () => {
		const template = path.join(ROOT, 'node_modules/@n8n/node-cli/dist/template/templates/shared/default/eslint.config.mjs');
		expect(fs.readFileSync(path.join(N8N, 'eslint.config.mjs'), 'utf8').trim()).toBe(
			fs.readFileSync(template, 'utf8').trim(),
		);
		expect(pkg.n8n.strict).toBe(true);
		// What `n8n-node cloud-support` reports as ENABLED, "eligible for n8n Cloud verification"
		// (@n8n/node-cli dist/commands/cloud-support.js showCloudSupportStatus): strict mode and this exact config.
		const config = fs.readFileSync(path.join(N8N, 'eslint.config.mjs'), 'utf8').replace(/\s+/g, ' ').trim();
		expect(config).toBe("import { config } from '@n8n/node-cli/eslint'; export default config;");
		// eslint-plugin-n8n-nodes-base changes its file-name rules when NODE_ENV=test (as under jest)
		const { NODE_ENV: _ignored, ...env } = process.env;
		const result = await run(path.join(BIN, 'n8n-node'), ['lint'], {
			cwd: N8N,
			env: { ...env, PATH: `${BIN}${path.delimiter}${process.env.PATH}`, FORCE_COLOR: '0' },
		}).then(
			(r) => ({ code: 0, out: r.stdout + r.stderr }),
			(e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
		);
		// eslint prints "N problems" and per-file findings only when there is something to report
		const plain = result.out.replace(/\x1b\[[0-9;]*m/g, '');
		expect(plain).not.toMatch(/\d+ problems?|error|warning/i);
		expect(result.code).toBe(0);
	}, 60_000);
});

describe("n8n's verification scanner (@n8n/scan-community-package, offline)", () => {
	it('reports 0 errors on the source (its SOURCE_FILE_PATTERNS) and on the unpacked npm pack tarball', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-scan-'));
		try {
			await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: N8N });
			const tarball = fs.readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
			await run('tar', ['-xzf', path.join(dir, tarball), '-C', dir]);
			// As for n8n-node lint: the plugin's file-name rules change under NODE_ENV=test (jest).
			const { NODE_ENV: _ignored, ...env } = process.env;
			const { stdout } = await run(process.execPath, [path.join(__dirname, 'scan-package.mjs'), N8N, path.join(dir, 'package')], { env, maxBuffer: 16 * 1024 * 1024 });
			const result = JSON.parse(stdout) as Record<'source' | 'tarball', { passed: boolean; message?: string; details?: string }>;
			// On a failure the scanner's own report (file, line, rule) is what the assertion shows.
			expect({ source: result.source.details ?? result.source.message ?? 'passed' }).toEqual({ source: 'passed' });
			expect({ tarball: result.tarball.details ?? result.tarball.message ?? 'passed' }).toEqual({ tarball: 'passed' });
			expect(result.source.passed && result.tarball.passed).toBe(true);
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	}, 120_000);
});

describe('dist', () => {
	it('has no restricted globals or imports, per the community-node rules n8n applies to packages', async () => {
		const scan = async (dir?: string) => {
			const { stdout } = await run(process.execPath, [path.join(__dirname, 'scan-dist.mjs'), ...(dir ? [dir] : [])]);
			return JSON.parse(stdout) as Array<{ file: string; messages: string[] }>;
		};
		const results = await scan();
		expect(results.map((r) => r.file).sort()).toEqual(
			[...pkg.n8n.nodes, ...pkg.n8n.credentials].map((f: string) => f.replace(/^dist\//, '')).sort(),
		);
		expect(results.flatMap((r) => r.messages)).toEqual([]);

		// the scan does catch them (control)
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-'));
		try {
			fs.writeFileSync(path.join(dir, 'bad.js'), 'setTimeout(() => {}, 1);\nmodule.exports = process.env;\n');
			const control = await scan(dir);
			expect(control[0].messages.join('\n')).toMatch(/'setTimeout'[\s\S]*'process'/);
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	}, 60_000);
});
