// Tags a release of the n8n package; the tag runs .github/workflows/publish.yml, which builds,
// lints and publishes with npm provenance. (`n8n-node release` would run release-it here: it
// tags the bare version, which in this monorepo does not say which package, and rewrites
// CHANGELOG.md from every commit of the repository; see the README's "Publishing".)
//
//   node scripts/release.mjs            checks, then tags n8n-v<version> and pushes the tag
//   node scripts/release.mjs --check T  only checks that tag T and CHANGELOG.md match the version
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const tag = `n8n-v${version}`;

function fail(message) {
	console.error(`release: ${message}`);
	process.exit(1);
}

const changelog = readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
if (!new RegExp(`^## \\[?${version.replace(/\./g, '\\.')}\\]?(\\s|$)`, 'm').test(changelog)) {
	fail(`CHANGELOG.md has no "## ${version}" section for package.json's version`);
}

const checkIndex = process.argv.indexOf('--check');
if (checkIndex !== -1) {
	const given = process.argv[checkIndex + 1];
	if (given !== tag) fail(`tag "${given}" does not match package.json's version (expected ${tag})`);
	console.log(`release: ${tag} matches package.json and CHANGELOG.md`);
} else {
	const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
	if (git('status', '--porcelain')) fail('commit your changes first');
	git('tag', '-a', tag, '-m', `n8n-nodes-certificate-service ${version}`);
	git('push', 'origin', tag);
	console.log(`release: pushed ${tag}; GitHub Actions publishes it (publish.yml)`);
}
