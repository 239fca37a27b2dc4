// fileStore (SQLite) refuses a file that is not a sound store, naming it and what SQLite said,
// and leaves it byte for byte as it was: it never starts empty over a damaged store (the next
// recovery would run again what it had run). Sharing between processes: file-store.process.test.ts.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileStore } from '@certificate-service/sdk';

const dir = mkdtempSync(path.join(tmpdir(), 'file-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A store made by fileStore, holding `n` done keys (written in one transaction: a commit per key costs a sync each). */
function storeWith(name: string, n: number): string {
  const file = path.join(dir, name);
  fileStore(file).close();
  const db = new DatabaseSync(file);
  const insert = db.prepare('INSERT INTO deliveries (key, token, expires, at) VALUES (?, NULL, ?, ?)');
  db.exec('BEGIN');
  for (let i = 0; i < n; i++) insert.run(`rec_${i}_${'x'.repeat(40)}`, Date.now() + 86_400_000, i);
  db.exec('COMMIT');
  db.close();
  return file;
}

test('a new store is one SQLite file in WAL mode; reopened, it has what was settled', () => {
  const file = storeWith('new.db', 3);
  expect(readFileSync(file).subarray(0, 16).toString()).toBe('SQLite format 3\0');
  const db = new DatabaseSync(file);
  expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
  db.close();
  const store = fileStore(file);
  expect([store.claim(`rec_2_${'x'.repeat(40)}`), store.doneAt(`rec_2_${'x'.repeat(40)}`)]).toEqual(['done', 2]);
  store.close();
});

test.each<[string, (file: string) => void, RegExp]>([
  ['a file of zero bytes (not empty)', (file) => writeFileSync(file, Buffer.alloc(16_384)), /SQLite could not read it: file is not a database \(SQLite error 26\)/],
  ['a 0-byte file (SQLite would take it for a new, empty database)', (file) => writeFileSync(file, ''), /the file is empty \(0 bytes\)/],
  ['a file of garbage', (file) => writeFileSync(file, randomBytes(16_384)), /SQLite could not read it: file is not a database/],
  ['a store of the earlier JSON-lines format', (file) => writeFileSync(file, '{"k":"rec_1","t":1764000000000}\n{"k":"rec_2","t":1764000000001}\n'), /earlier JSON-lines format.*pass a new path/],
  ['another SQLite database', (file) => {
    const db = new DatabaseSync(file);
    db.exec('CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES (1)');
    db.close();
  }, /an SQLite database, but not a delivery store/],
])('%s is refused, naming the file, and left as it was', (_name, make, why) => {
  const file = path.join(dir, `${_name.replace(/\W+/g, '-')}.db`);
  make(file);
  const before = digest(file);
  expect(() => fileStore(file)).toThrow(why);
  expect(() => fileStore(file)).toThrow(`fileStore ${file}: `);
  expect(digest(file)).toBe(before);
});

test('a store with one damaged page is refused with what SQLite reported, and left as it was', () => {
  const file = storeWith('damaged.db', 3_000);
  expect(statSync(file).size).toBeGreaterThan(40 * 4096);
  const fd = openSync(file, 'r+');
  writeSync(fd, randomBytes(4096), 0, 4096, 30 * 4096); // page 31 of the b-tree, garbage
  closeSync(fd);
  const before = digest(file);
  expect(() => fileStore(file)).toThrow(new RegExp(`^fileStore ${file}: (SQLite could not read it: database disk image is malformed|SQLite's quick_check found damage)`));
  expect(digest(file)).toBe(before);
});

test('a folder that does not exist: an error naming the file', () => {
  const file = path.join(dir, 'missing-folder', 'claims.db');
  expect(() => fileStore(file)).toThrow(`fileStore ${file}: could not create the store: its folder ${path.dirname(file)} does not exist (make it first: mkdir -m 700 ${path.dirname(file)}).`);
  expect(existsSync(path.dirname(file))).toBe(false);
});

test('bad options name the option', () => {
  expect(() => fileStore(path.join(dir, 'o.db'), { keepDays: 0 })).toThrow('fileStore: keepDays must be a positive number of days (got 0).');
  expect(() => fileStore(path.join(dir, 'o.db'), { pendingMs: -1 })).toThrow('fileStore: pendingMs must be a positive number of ms (got -1).');
  expect(() => fileStore(' ')).toThrow('fileStore: path must be');
  expect(existsSync(path.join(dir, 'o.db'))).toBe(false);
});
