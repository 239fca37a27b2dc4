// Runs n8n's verification scanner (@n8n/scan-community-package, pinned in the root
// package.json) offline, the way its analyzePackageByName does after the provenance check:
// the source folder with its SOURCE_FILE_PATTERNS, and the unpacked `npm pack` tarball with
// ['**/*.js', 'package.json']. Usage: node scan-package.mjs <source dir> <unpacked tarball dir>
// Prints {source, tarball} as JSON (passed, message, details); exit code 0 either way (the test decides).
import path from 'node:path';
import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const [source, tarball] = process.argv.slice(2).map((dir) => path.resolve(dir));
const strip = ({ passed, message, details }) => ({ passed, message, details });
const result = {
	source: strip(await analyzePackage(source, SOURCE_FILE_PATTERNS)),
	tarball: strip(await analyzePackage(tarball, ['**/*.js', 'package.json'])),
};
process.stdout.write(JSON.stringify(result));
