// The DeliveryStore contract (contract.ts) over the stores of one process and one machine:
// memoryStore, and fileStore (SQLite) opened twice on one file, both on a clock the test steps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileStore, memoryStore, type FileStore } from '@certificate-service/sdk';
import { storeContract } from './contract';

const dir = mkdtempSync(path.join(tmpdir(), 'store-contract-'));
const open: FileStore[] = [];
afterAll(() => {
  for (const store of open) store.close();
  rmSync(dir, { recursive: true, force: true });
});

const clock = () => {
  let t = Date.now();
  return { now: () => t, pass: async (ms: number) => void (t += ms) };
};

describe('memoryStore', () => {
  storeContract({
    name: 'memoryStore',
    keepsDays: false,
    async open({ pendingMs }) {
      const { now, pass } = clock();
      const store = memoryStore(1000, { pendingMs, now });
      return { a: store, b: store, pass };
    },
  });
});

describe('fileStore', () => {
  let n = 0;
  storeContract({
    name: 'fileStore',
    keepsDays: true,
    async open(options) {
      const { now, pass } = clock();
      const file = path.join(dir, `claims-${n++}.db`);
      const [a, b] = [fileStore(file, { ...options, now }), fileStore(file, { ...options, now })];
      open.push(a, b);
      return { a, b, pass };
    },
  });
});
