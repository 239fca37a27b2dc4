// `npm run register -w zapier`: creates the integration on Zapier, once, with the title,
// description and homepage of ../publisher.json (needs `npx zapier-platform login` first, and
// internet). `--print` prints the command as JSON instead of running it.
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { readPublisher } = require('../../release/publisher');

const publisher = readPublisher();
const args = [
  'register',
  publisher.name,
  '--desc', publisher.description, // at most 140 characters (the CLI's MAX_DESCRIPTION_LENGTH)
  '--url', publisher.homepage,
  '--audience', 'public',
  '--role', 'employee',
  '--category', 'education',
  '--subscribe',
];

if (process.argv.includes('--print')) console.log(JSON.stringify(['zapier-platform', ...args]));
else execFileSync('npx', ['zapier-platform', ...args], { cwd: path.resolve(__dirname, '..'), stdio: 'inherit' });
