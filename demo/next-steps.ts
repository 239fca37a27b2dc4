// What `npm start` prints around its report: where its sandbox is, and after the report where to
// go next (test/demo/next-steps.test.ts checks that each command and section it names exists, and
// that `npm start` ends with it).
import { DEMO_API_KEY } from '@certificate-service/sandbox';

/** The port `npm start -- --serve` listens on unless told otherwise (demo/args.ts). */
export const SERVE_PORT = 4010;

/**
 * The report's first line. The run's sandbox lives in this process and stops when the report
 * ends, so the report gives no link to it (a terminal would make one clickable, to nothing).
 */
export const EMBEDDED_SANDBOX = 'Sandbox: in this process, until the report ends (npm start -- --serve keeps one running).';

export const NEXT_STEPS = [
  'Next steps:',
  `  - Keep the sandbox running for your own calls: npm start -- --serve (base URL http://127.0.0.1:${SERVE_PORT}/api/v1, key ${DEMO_API_KEY}).`,
  '  - Issue from a CSV with the CLI, in a second terminal: the README\'s "Try it from this clone" does it with examples/learners.csv',
  '    (npm exec -w shared/cli -- certsvc issue --batch <batch id> --csv examples/learners.csv).',
  '  - Try n8n: the README\'s "Try it from this clone" installs n8n and this package into it.',
  '  - Try Zapier: zapier/README.md, "Try it locally", runs zapier-platform invoke against the sandbox.',
].join('\n');
