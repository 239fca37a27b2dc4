// A child process for test/sdk/stores/file-store.process.test.ts and the store benchmark, on the
// built SDK: one of several processes sharing one delivery store file. argv[2] is a JSON config;
// `store` picks fileStore (SQLite, "sqlite") or the earlier JSON-lines store ("jsonl", the baseline).
// - hammer: claims every key of a shared list, `passes` times in its own order; a taken key's first
//   attempt here fails (released) when its index is a multiple of `failEvery`, else its effect is
//   appended to `effects` and it is settled done, then appended to `acked` (acknowledged). Reopens
//   the store every `reopenEvery` keys (a restart); an effect takes `effectMs`. Starts when `goFlag`
//   exists; prints its counts as JSON.
// - receiver: an SDK receiver (createNodeHandler) on `port`, answering 503 while `downFlag` exists;
//   onEvent waits `delayMs`, then appends `<claim key> receiver`.
// - recover: waits for `goFlag`, then the README's recovery recipe, appending `<claim key> recovery`.
const fs = require('node:fs');
const http = require('node:http');
const { claimKey, createClient, createNodeHandler, fileStore } = require('@certificate-service/sdk');
const { jsonlFileStore } = require('../../../bench/stores/jsonl-file-store.cjs');

const config = JSON.parse(process.argv[2]);
const open = () => (config.store === 'jsonl' ? jsonlFileStore(config.file, config.options) : fileStore(config.file, config.options));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const append = (file, line) => fs.appendFileSync(file, `${line}\n`);

async function hammer() {
  // `distinct`: this process's own keys (a throughput run), else one list for all.
  const keys = Array.from({ length: config.keys }, (_, i) => (config.distinct ? `w${config.worker}_key_${i}` : `key_${i}`));
  const failed = new Set();
  const counts = { taken: 0, pending: 0, done: 0, released: 0, acked: 0, reopened: 0 };
  let store = open();
  let seen = 0;
  // Every process opens first, then all start together.
  process.stdout.write('ready\n');
  while (config.goFlag && !fs.existsSync(config.goFlag)) await sleep(5);
  const started = Date.now();
  for (let pass = 0; pass < config.passes; pass++) {
    // Each worker its own order (a rotation), so the processes meet on different keys.
    const order = keys.map((_, i) => keys[(i + config.worker * 97 + pass * 31) % keys.length]);
    for (const key of order) {
      if (config.reopenEvery && ++seen % config.reopenEvery === 0) {
        store.close?.();
        store = open();
        counts.reopened++;
      }
      const state = await store.claim(key);
      counts[state]++;
      if (state !== 'taken') continue;
      if (config.failEvery && Number(key.split('_').pop()) % config.failEvery === 0 && !failed.has(key)) {
        failed.add(key);
        await store.settle(key, false);
        counts.released++;
        continue;
      }
      if (config.effectMs) await sleep(config.effectMs); // the effect's work: others claim meanwhile
      if (config.effects) append(config.effects, `${key} ${config.worker}`);
      await store.settle(key, true);
      if (config.acked) append(config.acked, key);
      counts.acked++;
    }
  }
  store.close?.();
  process.stdout.write(`${JSON.stringify({ ...counts, started, ended: Date.now() })}\n`);
}

function receiver() {
  const handler = createNodeHandler({
    secret: config.secret,
    store: open(),
    onEvent: async (event, delivery) => {
      await sleep(config.delayMs);
      append(config.effects, `${claimKey(event, delivery.id)} receiver ${Date.now()}`);
    },
    onError: (error) => process.stderr.write(`${error.stack ?? error}\n`),
  });
  const server = http.createServer((req, res) => {
    if (fs.existsSync(config.downFlag)) return void res.writeHead(503).end();
    void handler(req, res);
  });
  server.listen(config.port, '127.0.0.1', () => process.stdout.write('listening\n'));
}

async function recover() {
  const client = createClient({ baseUrl: config.baseUrl, apiKey: config.apiKey });
  const store = open();
  process.stdout.write('ready\n');
  while (!fs.existsSync(config.goFlag)) await sleep(5);
  const result = await client.recoverEvents({
    since: config.since,
    store,
    onEvent: async (event, delivery) => {
      await sleep(config.delayMs);
      append(config.effects, `${claimKey(event, delivery.id)} recovery ${Date.now()}`);
    },
  });
  process.stdout.write(`${JSON.stringify({ found: result.found, ran: result.ran, duplicates: result.duplicates, pending: result.pending, failed: result.failed.length })}\n`);
}

Promise.resolve()
  .then(() => ({ hammer, receiver, recover })[config.mode]())
  .catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
