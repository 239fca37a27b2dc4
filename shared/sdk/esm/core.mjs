// The ESM entry of `@certificate-service/sdk/core`: the CommonJS build re-exported (see index.mjs).
export * from '../dist/core.js';
