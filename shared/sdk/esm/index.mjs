// The ESM entry: the CommonJS build re-exported, so `import` and `require` share one copy
// (one CertificateServiceError class for `instanceof`, one connection pool).
export * from '../dist/index.js';
