// Zapier's CommonJS entry point: the generated zapierwrapper.js requires this file.
// The app is TypeScript under src/, bundled together with the shared core into
// dist/index.js by `npm run build` (zapier-platform build runs it via `_zapier-build`).
module.exports = require('./dist/index.js').default;
