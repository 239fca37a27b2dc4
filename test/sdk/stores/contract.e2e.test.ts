// The DeliveryStore contract (contract.ts) over the stores for several machines, against a real
// redis-server and Postgres: redisStore through node-redis and through ioredis, postgresStore
// through a pg Pool. `a` and `b` are two clients (two machines' connections) on one server; the
// clock is the server's, so the test waits.
import { postgresStore, redisStore } from '@certificate-service/sdk';
import { storeServicesForFile } from '../../support/store-services';
import { storeContract } from './contract';

jest.setTimeout(60_000);
const services = storeServicesForFile();

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.each(['node-redis', 'ioredis'] as const)('redisStore (%s)', (kind) => {
  storeContract({
    name: `redisStore (${kind})`,
    keepsDays: true,
    async open(options) {
      const [a, b] = [redisStore(await services().redis(kind), options), redisStore(await services().redis(kind), options)];
      return { a, b, pass: wait };
    },
  });
});

describe('postgresStore', () => {
  let n = 0;
  storeContract({
    name: 'postgresStore',
    keepsDays: true,
    async open(options) {
      const table = `contract_${n++}`;
      return { a: postgresStore(services().pool(), { ...options, table }), b: postgresStore(services().pool(), { ...options, table }), pass: wait };
    },
  });
});
