#!/usr/bin/env node
// certsvc left the SDK in 0.3.0, so that apps installing the SDK do not install the CLI's
// dependencies. Whoever still runs it from here is told where it went.
process.stderr.write(
  'certsvc moved to its own package, @certificate-service/cli (since @certificate-service/sdk 0.3.0).\n' +
    'Run it with:  npx -p @certificate-service/cli certsvc ' + process.argv.slice(2).join(' ') + '\n' +
    'or install it: npm install -g @certificate-service/cli\n',
);
process.exit(1);
