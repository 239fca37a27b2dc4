// One of the receiver processes of test/reliability/r8-four-receivers.e2e.test.ts, on the built
// SDK: an SDK receiver (createNodeHandler) on `port` whose store is Redis (node-redis or ioredis)
// or Postgres (a pg Pool), from argv[2] (JSON). onEvent waits `delayMs`, then appends
// `<claim key> <name>` to the shared effects log.
// SIGUSR1 makes it the doomed receiver: every onEvent from then on blocks before its effect and
// prints `blocked <claim key>`; once every request that was not blocked has been answered (its
// effect written and its claim settled), it prints `quiet`. From then on no request of it is
// between its effect and its settle, and the test kills it (SIGKILL).
const fs = require('node:fs');
const http = require('node:http');
const { AsyncLocalStorage } = require('node:async_hooks');
const { claimKey, createNodeHandler, postgresStore, redisStore } = require('@certificate-service/sdk');

const config = JSON.parse(process.argv[2]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let blocking = false;
/** Requests being handled that are not parked in a blocked onEvent. */
let running = 0;
let quiet = false;
const request = new AsyncLocalStorage();
const say = (line) => process.stdout.write(`${line}\n`);
const checkQuiet = () => {
  if (blocking && running === 0 && !quiet) {
    quiet = true;
    say('quiet');
  }
};

async function storeOf() {
  if (config.store === 'postgres') {
    const { Pool } = require('pg');
    return postgresStore(new Pool({ connectionString: config.url, max: 8 }), { pendingMs: config.pendingMs, table: config.table });
  }
  if (config.client === 'ioredis') {
    const { Redis } = require('ioredis');
    const client = new Redis(config.url);
    return redisStore(client, { pendingMs: config.pendingMs, prefix: config.prefix });
  }
  const { createClient } = require('redis');
  const client = createClient({ url: config.url });
  await client.connect();
  return redisStore(client, { pendingMs: config.pendingMs, prefix: config.prefix });
}

async function main() {
  const handler = createNodeHandler({
    secret: config.secret,
    store: await storeOf(),
    onEvent: async (event, delivery) => {
      const key = claimKey(event, delivery.id);
      if (blocking) {
        request.getStore().parked = true;
        running--;
        say(`blocked ${key}`);
        checkQuiet();
        return new Promise(() => {}); // never: killed before its effect
      }
      await sleep(config.delayMs);
      fs.appendFileSync(config.effects, `${key} ${config.name}\n`);
    },
    onError: (error) => say(`error ${String(error?.message ?? error).split('\n')[0]}`),
  });
  const server = http.createServer((req, res) => {
    const state = { parked: false };
    running++;
    res.on('close', () => {
      if (state.parked) return;
      running--;
      checkQuiet();
    });
    request.run(state, () => void handler(req, res));
  });
  process.on('SIGUSR1', () => {
    blocking = true;
    checkQuiet();
  });
  server.listen(config.port, '127.0.0.1', () => say('listening'));
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
