// Run by a package's build (`node ../../release/bins.js`, in the package's folder), or by the
// root build with the packages' folders as arguments: marks the files each package.json names
// under "bin" executable. tsc writes them 0644, and `npm exec`
// makes them executable only when it first links the package into its cache (~/.npm/_npx, keyed
// by the package's path): a clone made again at the same path reuses that link, and running the
// bin then fails with "Permission denied".
const fs = require('node:fs');
const path = require('node:path');

function makeBinsExecutable(dir) {
  const { bin } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const files = typeof bin === 'string' ? [bin] : Object.values(bin ?? {});
  for (const file of files) fs.chmodSync(path.join(dir, file), 0o755);
  return files;
}

if (require.main === module) {
  const dirs = process.argv.slice(2);
  for (const dir of dirs.length ? dirs : [process.cwd()]) makeBinsExecutable(path.resolve(dir));
}

module.exports = { makeBinsExecutable };
