// fileStore refuses a store another local user could have made or could change (issue 42): a
// store of theirs would answer "done" for an event never run here (so it is skipped), or lose
// ours (so it runs twice). The folder must be this user's alone, the file and its -wal/-shm this
// user's and not links; the file is made 0600 and SQLite gives -wal and -shm its mode.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileStore } from '@certificate-service/sdk';
import { describeWithOtherUser, otherUser } from '../../support/other-user';

const fresh = () => fs.mkdtempSync(path.join(os.tmpdir(), 'file-store-private-'));
const modeOf = (p: string) => fs.lstatSync(p).mode & 0o7777;
const WAY_OUT = 'pass fileStore a path in a folder of your own (mkdir -m 700 <folder>).';
const digest = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('as any user', () => {
  test('a new store is 0600, and so are its -wal and -shm; its folder is left as it was', () => {
    const dir = fresh();
    fs.chmodSync(dir, 0o750);
    const file = path.join(dir, 'claims.db');
    const store = fileStore(file);
    try {
      expect(store.claim('rec_1')).toBe('taken');
      expect([file, `${file}-wal`, `${file}-shm`].map(modeOf)).toEqual([0o600, 0o600, 0o600]);
      expect(modeOf(dir)).toBe(0o750);
      expect(fs.readdirSync(dir).sort()).toEqual(['claims.db', 'claims.db-shm', 'claims.db-wal']);
    } finally {
      store.close();
    }
  });

  test('in a folder others can write (a shared one such as /tmp, or one left open) it is refused, and nothing is made there', () => {
    const shared = fresh();
    fs.chmodSync(shared, 0o1777);
    expect(() => fileStore(path.join(shared, 'claims.db'))).toThrow(`Invalid "path": ${shared} is a shared folder (mode 1777): other users can put files in it: ${WAY_OUT}`);
    const open = fresh();
    fs.chmodSync(open, 0o777);
    expect(() => fileStore(path.join(open, 'claims.db'))).toThrow(`Invalid "path": ${open} can be written by other users (mode 777): chmod 700 ${open}, or ${WAY_OUT}`);
    expect([...fs.readdirSync(shared), ...fs.readdirSync(open)]).toEqual([]);
  });

  test('a link as the store, or as its -wal or -shm, is refused, naming it; what it points to is left as it was', () => {
    const dir = fresh();
    const file = path.join(dir, 'claims.db');
    fileStore(file).close();
    const victim = path.join(fresh(), 'victim');
    fs.writeFileSync(victim, 'precious');
    for (const name of [`${file}-wal`, `${file}-shm`]) {
      fs.symlinkSync(victim, name);
      expect(() => fileStore(file)).toThrow(`Invalid "path": ${name} is a symbolic link, where a file was expected: remove it (rm ${name}), or ${WAY_OUT}`);
      fs.unlinkSync(name);
    }
    const linked = path.join(dir, 'linked.db');
    fs.symlinkSync(file, linked);
    expect(() => fileStore(linked)).toThrow(`${linked} is a symbolic link, where a file was expected`);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
  });
});

describeWithOtherUser('with a second local user', () => {
  const other = otherUser();
  /** A folder of ours they may look in; `group`: their group may write it too (the way their files get in). */
  const ours = (group: boolean) => {
    const top = fresh();
    fs.chmodSync(top, 0o755);
    const dir = path.join(top, 'store');
    fs.mkdirSync(dir, { mode: 0o700 });
    if (group) {
      fs.chownSync(dir, 0, other.gid);
      fs.chmodSync(dir, 0o770);
    }
    return dir;
  };

  test('their store in our folder: refused, so none of its "done" keys is taken for ours', () => {
    const theirs = ours(false);
    fs.chownSync(theirs, other.uid, other.gid);
    // They make a store with this very SDK, in which rec_1 is done (an event we never ran would be skipped).
    other.as(() => {
      const store = fileStore(path.join(theirs, 'claims.db'));
      store.claim('rec_1');
      store.settle('rec_1', true);
      store.close();
    });
    const dir = ours(true);
    other.sh(`cp ${theirs}/claims.db ${dir}/claims.db`);
    fs.chmodSync(dir, 0o700); // the folder is closed again; their file stays
    const file = path.join(dir, 'claims.db');
    const before = digest(file);
    expect(() => fileStore(file)).toThrow(`Invalid "path": ${file} belongs to another user (uid ${other.uid}), so what is in it is not trusted: remove it if you can (rm -r ${file}), or ${WAY_OUT}`);
    expect(digest(file)).toBe(before);
    // Their folder, as it is: refused too.
    const inTheirs = path.join(theirs, 'claims.db');
    expect(() => fileStore(inTheirs)).toThrow(`Invalid "path": ${theirs} belongs to another user (uid ${other.uid})`);
  });

  test('a -wal of theirs beside our store (SQLite would write our pages into their file): refused', () => {
    const dir = ours(false);
    const file = path.join(dir, 'claims.db');
    fileStore(file).close();
    fs.chownSync(dir, 0, other.gid);
    fs.chmodSync(dir, 0o770); // open to their group for a while
    other.sh(`echo planted > ${file}-wal`);
    fs.chmodSync(dir, 0o700);
    expect(() => fileStore(file)).toThrow(`Invalid "path": ${file}-wal belongs to another user (uid ${other.uid}), so what is in it is not trusted`);
  });

  test('a folder this user cannot write: an error naming it and the fix, not SQLite\'s "unable to open database file"', () => {
    const dir = ours(false);
    fs.chmodSync(dir, 0o755); // root's: they may look in, not write
    const file = path.join(dir, 'claims.db');
    expect(() => other.as(() => fileStore(file))).toThrow(
      `Invalid "path": ${dir} cannot be written by this user (uid ${other.uid}; it belongs to uid 0, mode 755): make it yours (sudo chown ${other.uid} ${dir}), or ${WAY_OUT}`,
    );
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
