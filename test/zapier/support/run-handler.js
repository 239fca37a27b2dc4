// Runs in a child process on Node 22, like Zapier's Lambda: loads the unzipped build's
// zapierwrapper.js and feeds its `handler` each event from argv[3] (a JSON array),
// printing one JSON line per event: {ok, results} or {ok: false, name, message}.
const path = require('node:path');

async function main() {
  const dir = process.argv[2];
  const events = JSON.parse(process.argv[3]);
  const { handler } = require(path.join(dir, 'zapierwrapper.js'));
  const out = [];
  for (const event of events) {
    try {
      const response = await handler(event, {});
      out.push({ ok: true, results: response.results });
    } catch (error) {
      out.push({ ok: false, name: error && error.name, message: error && error.message });
    }
  }
  process.stdout.write(`\n__RESULTS__${JSON.stringify({ node: process.version, out })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
