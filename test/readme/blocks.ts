// What `npm run test:readme` (test/readme/blocks.e2e.test.ts) does with each shell block of
// the READMEs and docs/: it runs the block as written (with the substitutions that test lists),
// or the block is here with the reason it is not run, or with `registry`: a registry line, run by
// `npm run test:registry` (test/registry/install.e2e.test.ts) against a local npm registry. A block not named here fails
// test/readme/blocks.test.ts, so a new block is either run or explained.

export type Plan =
  /** The block is not run at all. */
  | { notRun: string }
  | {
      /** Run by `npm run test:registry` only, not by `npm run test:readme`: what that suite does with it. */
      registry?: string;
      /** Lines (exactly as written) the test does not run, each with why. */
      skip?: Record<string, string>;
      /** Lines that keep running in the foreground (servers), each with the text its banner prints once it is ready. */
      servers?: Record<string, string>;
    };

const SUITES = 'a test suite: `npm test` runs it';

export const PLANS: Record<string, Plan> = {
  'README.md › Two commands': {
    skip: { 'npm test                   # builds, type-checks and runs every test (unit, contract, e2e, editor in a browser)': 'the whole suite: `.ci/run` runs it before this one' },
  },
  'README.md › Try it from this clone #1': { servers: { 'npm exec -w shared/sandbox -- certsvc-sandbox --port 4010': 'listening' } },
  'README.md › Try it from this clone #2': {},
  'README.md › Try it from this clone #3': {},
  'README.md › Try it from this clone #4': {
    skip: { 'bash test/e2e/n8n/n8n.sh start': 'run by the e2e harness after the block (startN8n with this script as its launcher, the fresh HOME as its user folder), which then runs an example workflow in it' },
  },
  'docs/subscriptions.md › Webhook subscriptions: 20 per workspace': {
    registry: 'installs the CLI from the registry (npx) and lists a sandbox workspace\'s subscriptions; test/cli/cli.test.ts lists and deletes them in a full workspace',
    skip: {
      'export CERTSVC_API_KEY=… CERTSVC_BASE_URL=https://<your service host>/api/v1': 'placeholders for the live service: the test sets both to a sandbox\'s',
      'npx -p @certificate-service/cli certsvc subscriptions delete whs_…  # one whose URL no Zap or workflow uses': 'a placeholder id (`whs_…`); test/cli/cli.test.ts deletes one',
    },
  },
  'docs/releasing.md › Releasing #1': { notRun: 'needs the live service (`<your service host>`); test/cli/doctor.test.ts runs `certsvc doctor` against the sandbox' },
  'docs/releasing.md › Releasing #2': {
    notRun: 'exits 1 by design while publisher.json holds placeholders; test/release/publisher.process.test.ts runs its check (release/check.js) and expects exactly those problems',
  },
  'n8n/README.md › Manual installation (self-hosted, queue mode, Docker) #1': {
    registry: 'installs into ~/.n8n/nodes from the registry; then n8n 2.41.1, with that home as its user folder, runs the example workflow',
  },
  'n8n/README.md › Manual installation (self-hosted, queue mode, Docker) #2': {
    skip: { 'N8N_CUSTOM_EXTENSIONS=/tmp/n8n-custom n8n start': 'the reader\'s own n8n, a server; test/e2e/n8n/connector.e2e.test.ts loads the package this way in n8n 2.41.1' },
  },
  'docs/design/n8n.md › Build and test': {
    notRun: "a maintainer's commands, each run by `npm test`: the build first, n8n-node lint in test/n8n/lint.process.test.ts, and both jest folders",
  },
  'shared/cli/README.md › Install #1': { registry: 'npx installs the CLI from the registry and prints its help' },
  'shared/cli/README.md › Install #2': {},
  'shared/cli/README.md › Commands': {
    notRun: 'a reference, with placeholders (`<your service host>`, `<batchId>`, learners.csv); test/cli/cli.test.ts, batches.test.ts and doctor.test.ts run the commands against the sandbox',
  },
  'shared/mcp/README.md › Configure your client': {},
  'shared/sandbox/README.md › Install #1': { registry: 'installs both into an empty folder from the registry; then its Start it block serves from there' },
  'shared/sandbox/README.md › Install #2': {},
  'shared/sandbox/README.md › Start it': { servers: { 'npx certsvc-sandbox --port 4010 --deliver-to http://127.0.0.1:3000/webhooks': 'secret   :' } },
  'shared/sdk/README.md › For other apps #1': { registry: 'installs the SDK into an empty folder from the registry; then the README\'s issue example runs there against a sandbox' },
  'shared/sdk/README.md › For other apps #2': {},
  'test/bench/README.md › Benchmarks': {
    skip: {
      'npm run bench                          # builds, then runs everything (~6 min: P2 alone is 2 min)': 'the benchmarks: minutes of load, and they rewrite results.json',
      'npm run bench -- --only P1,P4          # some of them (P1..P9, P9R, S = the sandbox\'s own benchmark, S3)': 'the benchmarks: they rewrite results.json',
      'npm run bench -- --quick               # small N, a ~40 s smoke run → results.local.json (git-ignored)': 'the benchmarks: a minute of load',
    },
  },
  'test/bench/n8n-kill/README.md › The poll trigger when n8n is killed (a measurement, not a CI test)': {
    notRun: 'a measurement, not a CI test: 15 min of n8n kills that rewrite results.json and n8n/README.md (test/bench/n8n-kill/readme.docs.test.ts checks that paragraph against results.json)',
  },
  "test/e2e/n8n-editor/README.md › n8n's editor, driven in a browser": { notRun: SUITES },
  'test/e2e/queue/README.md › n8n queue mode: harness and suite': { notRun: 'the queue-mode suite: `.ci/run` runs it' },
  'zapier/README.md › Setup': {},
  'zapier/README.md › Try it locally: `zapier-platform invoke` against the sandbox #1': { servers: { 'npm start -- --serve --port 4010': 'listening' } },
  'zapier/README.md › Try it locally: `zapier-platform invoke` against the sandbox #2': {
    skip: {
      'npx zapier-platform invoke create issue_certificate   # asks for each field, the design\'s variables among them':
        'asks questions on a terminal; test/zapier/invoke.process.test.ts runs it with --non-interactive -i',
    },
  },
  'zapier/README.md › Publishing (needs a Zapier login and internet, so it is not run here)': {
    notRun: 'needs a Zapier login and internet; test/zapier/listing.test.ts checks the logo and the changelog these commands send',
  },
};
