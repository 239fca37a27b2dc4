// Bundles the app and the shared core (which is not a published package) into one
// CommonJS file. zapier-platform-core stays external: Zapier's wrapper loads it from
// node_modules, and the app must use that same instance (z.errors, createAppHandler).
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');

esbuild
  .build({
    absWorkingDir: root,
    entryPoints: ['src/index.ts'],
    outfile: 'dist/index.js',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22', // Zapier runs CLI apps on Node 22
    external: ['zapier-platform-core'],
    legalComments: 'none',
    logLevel: 'warning',
  })
  .catch(() => process.exit(1));
