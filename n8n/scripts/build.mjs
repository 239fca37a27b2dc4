// Builds the publishable `dist/` of the community node package with no runtime
// dependencies: each node and credential is bundled with esbuild, the shared core
// (@certificate-service/sdk/core, resolved through tsconfig paths) compiled into it; only `n8n-workflow` (a peer dependency provided by
// n8n) stays external. The output is CommonJS, not minified, so it stays readable.
// Icons and codex files are copied next to the compiled files, as `n8n-node build` does.
// The publisher's identity (../publisher.json) is stamped into the credential's and the codex
// files' documentation links, in dist/; package.json gets it at pack time (prepack), so a build
// changes no tracked file.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist');
// Built next to dist and swapped in at the end, so a reader never sees a half-written dist.
const tmp = path.join(root, `.dist-${process.pid}`);

const { N8N_CODEX_DOCS, codexResources, docsLink, readPublisher } = createRequire(import.meta.url)(
	'../../release/publisher.js',
);
const publisher = readPublisher();

const entryPoints = {
	'credentials/CertificateServiceApi.credentials': 'credentials/CertificateServiceApi.credentials.ts',
	'nodes/CertificateService/CertificateService.node': 'nodes/CertificateService/CertificateService.node.ts',
	'nodes/CertificateServiceTrigger/CertificateServiceTrigger.node':
		'nodes/CertificateServiceTrigger/CertificateServiceTrigger.node.ts',
	'nodes/CertificateServicePollTrigger/CertificateServicePollTrigger.node':
		'nodes/CertificateServicePollTrigger/CertificateServicePollTrigger.node.ts',
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
// The credential's documentationUrl must be a literal in the source (n8n's lint), so the
// publisher's docs link is stamped over it here.
const credential = path.join(tmp, 'credentials/CertificateServiceApi.credentials.js');
const credentialJs = await readFile(credential, 'utf8');
const stamped = credentialJs.replace(/(documentationUrl = )"[^"]*"/, (_, lhs) => lhs + JSON.stringify(docsLink(publisher, 'n8n', 'credentials')));
if (stamped === credentialJs && !credentialJs.includes(docsLink(publisher, 'n8n', 'credentials'))) {
	throw new Error('build: no documentationUrl to stamp in the credential');
}
await writeFile(credential, stamped);
for (const dir of ['icons', 'nodes', 'credentials']) await copyStatic(dir);
for (const [codex, anchor] of Object.entries(N8N_CODEX_DOCS)) {
	const file = path.join(tmp, codex);
	const json = JSON.parse(await readFile(file, 'utf8'));
	json.resources = codexResources(publisher, anchor);
	await writeFile(file, `${JSON.stringify(json, null, '\t')}\n`);
}
await rm(out, { recursive: true, force: true });
await rename(tmp, out);
console.log(`built ${Object.keys(entryPoints).length} entries into ${path.relative(process.cwd(), out) || 'dist'}`);
