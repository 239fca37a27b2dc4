// Builds the publishable `dist/` of the community node package with no runtime
// dependencies: each node and credential is bundled with esbuild, the shared core
// (@certificate-service/sdk/core, resolved through tsconfig paths) compiled into it; only `n8n-workflow` (a peer dependency provided by
// n8n) stays external. The output is CommonJS, not minified, so it stays readable.
// Icons and codex files are copied next to the compiled files, as `n8n-node build` does.
import { build } from 'esbuild';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist');
// Built next to dist and swapped in at the end, so a reader never sees a half-written dist.
const tmp = path.join(root, `.dist-${process.pid}`);

const entryPoints = {
	'credentials/CertificateServiceApi.credentials': 'credentials/CertificateServiceApi.credentials.ts',
	'nodes/CertificateService/CertificateService.node': 'nodes/CertificateService/CertificateService.node.ts',
	'nodes/CertificateServiceTrigger/CertificateServiceTrigger.node':
		'nodes/CertificateServiceTrigger/CertificateServiceTrigger.node.ts',
};

async function copyStatic(dir) {
	for (const entry of await readdir(path.join(root, dir), { withFileTypes: true })) {
		const rel = path.join(dir, entry.name);
		if (entry.isDirectory()) await copyStatic(rel);
		else if (/\.(svg|png)$/.test(entry.name) || entry.name.endsWith('.node.json')) {
			await mkdir(path.dirname(path.join(tmp, rel)), { recursive: true });
			await cp(path.join(root, rel), path.join(tmp, rel));
		}
	}
}

await rm(tmp, { recursive: true, force: true });
await build({
	absWorkingDir: root,
	entryPoints: Object.fromEntries(Object.entries(entryPoints).map(([k, v]) => [k, path.join(root, v)])),
	outdir: tmp,
	bundle: true,
	platform: 'node',
	target: 'node20',
	format: 'cjs',
	external: ['n8n-workflow'],
	minify: false,
	keepNames: true,
	sourcemap: false,
	legalComments: 'none',
	logLevel: 'warning',
});
// Source-level `eslint-disable` comments survive bundling but name rules that a linter of the
// published JavaScript (n8n's package scan) does not load, which it reports as errors.
for (const file of Object.keys(entryPoints)) {
	const js = path.join(tmp, `${file}.js`);
	const text = await readFile(js, 'utf8');
	await writeFile(js, text.replace(/^[ \t]*\/\/ eslint-disable.*\r?\n/gm, ''));
}
for (const dir of ['icons', 'nodes', 'credentials']) await copyStatic(dir);
await rm(out, { recursive: true, force: true });
await rename(tmp, out);
console.log(`built ${Object.keys(entryPoints).length} entries into ${path.relative(process.cwd(), out) || 'dist'}`);
