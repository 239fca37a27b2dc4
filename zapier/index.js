// Zapier's CommonJS entry point: the generated zapierwrapper.js requires this file.
// The app is TypeScript under src/, bundled together with the shared core into
// dist/index.js by `npm run build` (zapier-platform build runs it via `_zapier-build`).
module.exports = require('./dist/index.js').default;

// Only for `zapier-platform build`'s file detection; does nothing at run time (see scripts/build.js).
require('./dist/build-includes.js');
