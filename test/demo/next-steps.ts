// The demo moved to demo/ at the root; test/e2e/readme/blocks.e2e.test.ts still imports it from
// here (not this branch's to edit). Point it at demo/next-steps and delete this file.
export { NEXT_STEPS, SERVE_PORT } from '../../demo/next-steps';
