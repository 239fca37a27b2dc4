// State folders another user cannot plant (issue 42): privatePath refuses a folder or file another
// user made or can change (or a link where one is expected), naming it and the fix, and makes a
// fresh folder 0700; the in-flight markers check their folder and each marker they read. The
// MCP confirmations: test/mcp/confirm.test.ts; fileStore: test/sdk/stores/file-store-planted.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileInFlightMarkers, privatePath } from '@certificate-service/sdk';
import { describeWithOtherUser, otherUser, sharedFolder } from '../support/other-user';

const fresh = () => fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-state-'));
const modeOf = (p: string) => fs.lstatSync(p).mode & 0o7777;
const KEY = 'ab'.repeat(32); // a marker key: a hex hash
const WAY_OUT = 'or set CERTSVC_STATE_DIR to a folder of your own.';

describe('as any user', () => {
  test('a fresh folder is made 0700, its missing parents too; a missing file is undefined; markers are made 0600', async () => {
    const root = fresh();
    const dir = path.join(root, 'a', 'b', 'in-flight');
    expect(privatePath(dir, 'folder')!.isDirectory()).toBe(true);
    for (const made of [path.join(root, 'a'), path.join(root, 'a', 'b'), dir]) expect(modeOf(made)).toBe(0o700);
    expect(privatePath(path.join(dir, 'none'), 'file')).toBeUndefined();
    expect(privatePath(path.join(root, 'x'), 'folder', { create: false })).toBeUndefined();
    expect(fs.existsSync(path.join(root, 'x'))).toBe(false);

    const markersDir = path.join(root, 'state', 'in-flight');
    const markers = fileInFlightMarkers({ env: { CERTSVC_STATE_DIR: path.join(root, 'state') } });
    expect(modeOf(markersDir)).toBe(0o700); // made when the markers are, before anything is held
    expect(await markers.acquire(KEY)).toBe(true);
    await markers.sending([KEY]);
    expect(modeOf(path.join(markersDir, KEY))).toBe(0o600);
    expect(fs.readdirSync(markersDir)).toEqual([KEY]);
  });

  test('a symbolic link where a folder or a file is expected is refused, naming it', () => {
    const root = fresh();
    fs.mkdirSync(path.join(root, 'real'), { mode: 0o700 });
    fs.writeFileSync(path.join(root, 'real', 'key'), 'x', { mode: 0o600 });
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'linked'));
    fs.symlinkSync(path.join(root, 'real', 'key'), path.join(root, 'real', 'key-link'));
    const linked = path.join(root, 'linked');
    expect(() => privatePath(linked, 'folder')).toThrow(`Invalid "CERTSVC_STATE_DIR": ${linked} is a symbolic link, where a folder was expected: remove it (rm ${linked}), ${WAY_OUT}`);
    const keyLink = path.join(root, 'real', 'key-link');
    expect(() => privatePath(keyLink, 'secret')).toThrow(`${keyLink} is a symbolic link, where a file was expected`);
    // A link above the folder is followed, and what it leads to is checked (here: this user's).
    expect(privatePath(path.join(linked, 'sub'), 'folder')!.isDirectory()).toBe(true);
  });

  test('a folder or file others can write is refused with the chmod that fixes it; a key others can read too', () => {
    const root = fresh();
    const dir = path.join(root, 'state');
    fs.mkdirSync(dir);
    fs.chmodSync(dir, 0o775);
    expect(() => privatePath(dir, 'folder')).toThrow(`Invalid "CERTSVC_STATE_DIR": ${dir} can be written by other users (mode 775): chmod 700 ${dir}, ${WAY_OUT}`);
    fs.chmodSync(dir, 0o700);
    const file = path.join(dir, 'marker');
    fs.writeFileSync(file, '{}');
    fs.chmodSync(file, 0o666);
    expect(() => privatePath(file, 'file')).toThrow(`${file} can be written by other users (mode 666): chmod 600 ${file}`);
    fs.chmodSync(file, 0o644);
    expect(privatePath(file, 'file')!.isFile()).toBe(true); // readable is fine for a marker
    expect(() => privatePath(file, 'secret')).toThrow(`${file} can be read or written by other users (mode 644): chmod 600 ${file}`);
    // A shared folder such as /tmp cannot be closed with chmod: the way out is a folder of one's own.
    const shared = fresh();
    fs.chmodSync(shared, 0o1777);
    expect(() => privatePath(shared, 'folder')).toThrow(`${shared} is a shared folder (mode 1777): other users can put files in it: set CERTSVC_STATE_DIR to a folder of your own.`);
  });

  test('inside a folder others can write, it is refused (they could swap it); with the sticky bit, as /tmp, it is not', () => {
    const open = fresh();
    fs.chmodSync(open, 0o777);
    const dir = path.join(open, 'certsvc');
    expect(() => privatePath(dir, 'folder')).toThrow(`${dir} is inside ${open}, which other users can write (mode 777, no sticky bit), so they could replace it: chmod go-w ${open}, ${WAY_OUT}`);
    expect(fs.existsSync(dir)).toBe(false); // nothing made there
    fs.chmodSync(open, 0o1777);
    expect(privatePath(dir, 'folder')!.isDirectory()).toBe(true);
  });

  test('a file where a folder should be: the error says which', () => {
    const root = fresh();
    fs.writeFileSync(path.join(root, 'file'), '');
    const dir = path.join(root, 'file', 'in-flight');
    expect(() => fileInFlightMarkers({ dir })).toThrow(`Invalid "dir": ${dir} cannot be made (ENOTDIR): move ${path.join(root, 'file')} away (a file where a folder should be), or pass a dir of your own.`);
  });

  test('a marker put where this run writes its next one, as a link, is replaced, never written through', async () => {
    const dir = path.join(fresh(), 'in-flight');
    const markers = fileInFlightMarkers({ dir });
    expect(await markers.acquire(KEY)).toBe(true);
    const victim = path.join(fresh(), 'victim');
    fs.writeFileSync(victim, 'precious');
    fs.symlinkSync(victim, path.join(dir, `${KEY}.tmp-${process.pid}`));
    await markers.sending([KEY]);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
    expect(JSON.parse(fs.readFileSync(path.join(dir, KEY), 'utf8'))).toMatchObject({ pid: process.pid, sentAt: expect.any(Number) });
    expect(fs.readdirSync(dir)).toEqual([KEY]);
  });
});

describeWithOtherUser('with a second local user', () => {
  const other = otherUser();
  const shared = sharedFolder(); // as /tmp: root's, sticky, everyone may write

  test('a state folder that user made first (CERTSVC_STATE_DIR in a shared folder) is refused, and nothing in it is read or made', async () => {
    const state = path.join(shared.path, 'planted');
    // Their "live" marker for our key: pid 1 runs, so it would hold this email, or they could delete ours.
    other.sh(`mkdir -m 755 ${state} ${state}/in-flight && echo '{"pid":1,"host":"${os.hostname()}","createdAt":${Date.now()}}' > ${state}/in-flight/${KEY}`);
    const refusal = `Invalid "CERTSVC_STATE_DIR": ${state}/in-flight is inside ${state}, which belongs to another user (uid ${other.uid}), who could replace it: set CERTSVC_STATE_DIR to a folder of your own.`;
    expect(() => fileInFlightMarkers({ env: { CERTSVC_STATE_DIR: state } })).toThrow(refusal);
    // Their own folder, checked as themselves, is theirs: accepted.
    expect(other.as(() => privatePath(state, 'folder'))).toBeDefined();
    // Had it not been there yet: nothing is made inside it either.
    const empty = path.join(shared.path, 'planted-empty');
    other.sh(`mkdir -m 755 ${empty}`);
    expect(() => privatePath(path.join(empty, 'in-flight'), 'folder')).toThrow(`${empty}/in-flight is inside ${empty}, which belongs to another user (uid ${other.uid})`);
    expect(fs.readdirSync(empty)).toEqual([]);
    // The folder itself, and a folder of theirs met on the way through a link.
    expect(() => privatePath(state, 'folder')).toThrow(`${state} belongs to another user (uid ${other.uid}), so what is in it is not trusted: remove it if you can (rm -r ${state}), ${WAY_OUT}`);
    const link = path.join(fresh(), 'state');
    fs.symlinkSync(state, link);
    expect(() => privatePath(path.join(link, 'in-flight'), 'folder')).toThrow(`${link}/in-flight is inside ${state}, which belongs to another user (uid ${other.uid})`);
  });

  test('a folder their group can write is refused; a marker of theirs left in it is refused even once it is closed', async () => {
    const dir = path.join(fresh(), 'in-flight');
    fs.chmodSync(path.dirname(dir), 0o755);
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chownSync(dir, 0, other.gid);
    fs.chmodSync(dir, 0o770);
    other.sh(`echo '{"pid":1,"host":"${os.hostname()}","createdAt":${Date.now()}}' > ${dir}/${KEY}`); // they can, through the group
    expect(() => fileInFlightMarkers({ dir })).toThrow(`Invalid "dir": ${dir} can be written by other users (mode 770): chmod 700 ${dir}, or pass a dir of your own.`);
    fs.chmodSync(dir, 0o700);
    const markers = fileInFlightMarkers({ dir });
    const marker = path.join(dir, KEY);
    await expect(markers.acquire(KEY)).rejects.toThrow(`Invalid "dir": ${marker} belongs to another user (uid ${other.uid}), so what is in it is not trusted: remove it if you can (rm -r ${marker}), or pass a dir of your own.`);
  });

  test('a folder this user cannot write: an error naming it and the fix, not a bare EACCES', () => {
    const state = path.join(fresh(), 'state');
    fs.mkdirSync(state, { mode: 0o755 });
    fs.chmodSync(path.dirname(state), 0o755); // they may look in, not write
    const inFlight = path.join(state, 'in-flight');
    expect(() => other.as(() => fileInFlightMarkers({ env: { CERTSVC_STATE_DIR: state } }))).toThrow(
      `Invalid "CERTSVC_STATE_DIR": ${inFlight} cannot be made (EACCES): make ${state} writable, ${WAY_OUT}`,
    );
    fs.mkdirSync(inFlight, { mode: 0o755 });
    expect(() => other.as(() => fileInFlightMarkers({ env: { CERTSVC_STATE_DIR: state } }))).toThrow(
      `Invalid "CERTSVC_STATE_DIR": ${inFlight} cannot be written by this user (uid ${other.uid}; it belongs to uid 0, mode 755): make it yours (sudo chown ${other.uid} ${inFlight}), ${WAY_OUT}`,
    );
    fs.chownSync(inFlight, other.uid, other.gid);
    fs.chmodSync(inFlight, 0o500);
    expect(() => other.as(() => privatePath(inFlight, 'folder'))).toThrow(`${inFlight} cannot be written by this user (uid ${other.uid}; it belongs to uid ${other.uid}, mode 500): chmod 700 ${inFlight}`);
  });
});
