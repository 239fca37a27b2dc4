// A second process for test/sdk/retry-never-twice.process.test.ts: issues the emails given on argv into
// a batch of the stub service, with file markers in CERTSVC_STATE_DIR, through the built SDK.
// Prints "started" once its run has taken its emails, and its outcome counts at the end.
const { createClient, fileInFlightMarkers, countOutcomes } = require('@certificate-service/sdk');

const [baseUrl, batchId, count, prefix] = process.argv.slice(2);
const client = createClient({ baseUrl, apiKey: 'sk_test_stub_key_0123456789' });
const items = Array.from({ length: Number(count) }, (_, i) => ({ batchId, name: `P${i}`, email: `${prefix}${i}@example.com` }));
client
  .issueMany(items, { inFlight: fileInFlightMarkers(), variables: false, onCall: () => process.stdout.write('sending\n') })
  .then((outcomes) => process.stdout.write(`${JSON.stringify(countOutcomes(outcomes))}\n`))
  .catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
