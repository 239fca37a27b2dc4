// Sealed confirmation tokens: bound to the tool, the arguments, the targets and the service,
// with an expiry; good once for every process sharing the state folder; a lost or unreadable
// memory of used tokens renews the key, so old tokens fail rather than replay.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfirmationTokens, confirmationsDir, serviceIdentity, stateDir, CONFIRMATION_TTL_MS } from '@certificate-service/mcp';
import { describeWithOtherUser, otherUser, sharedFolder } from '../support/other-user';

const fresh = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-confirm-')), 'mcp', 'confirmations');
const binding = { tool: 'delete_certificate', args: { certificateId: 'CERT-1', confirmationToken: 'ignored' }, target: ['b1', 'rec_1'], service: serviceIdentity('https://api.example/api/v1', 'sk_live_a') };

test('the state folder: CERTSVC_STATE_DIR, else XDG_STATE_HOME/certsvc, else ~/.local/state/certsvc; confirmations under mcp/', () => {
  expect(stateDir({ CERTSVC_STATE_DIR: '/s', XDG_STATE_HOME: '/x' })).toBe('/s');
  expect(stateDir({ XDG_STATE_HOME: '/x' })).toBe('/x/certsvc');
  expect(stateDir({})).toBe(path.join(os.homedir(), '.local/state/certsvc'));
  expect(confirmationsDir({ CERTSVC_STATE_DIR: '/s' })).toBe('/s/mcp/confirmations');
  expect(CONFIRMATION_TTL_MS).toBeLessThanOrEqual(10 * 60_000);
});

test('another tool, service, target or arguments, expiry, forgery and tampering each say which; the right call redeems once', () => {
  let now = 1_000_000;
  const tokens = new ConfirmationTokens(fresh(), CONFIRMATION_TTL_MS, () => now);
  const { token, expiresAt } = tokens.issue(binding);
  expect(expiresAt).toBe(new Date(1_000_000 + CONFIRMATION_TTL_MS).toISOString());
  expect(token).not.toContain('sk_live_a');
  expect(tokens.redeem(token, { ...binding, tool: 'send_certificate' })).toBe('tool');
  expect(tokens.redeem(token, { ...binding, service: serviceIdentity('https://api.example/api/v1', 'sk_live_b') })).toBe('service');
  expect(tokens.redeem(token, { ...binding, service: serviceIdentity('https://staging.example/api/v1', 'sk_live_a') })).toBe('service');
  expect(tokens.redeem(token, { ...binding, target: ['b1', 'rec_2'] })).toBe('target');
  expect(tokens.redeem(token, { ...binding, args: { certificateId: 'CERT-2' } })).toBe('arguments');
  expect(tokens.redeem('ct2.nonsense', binding)).toBe('forged');
  const parts = token.split('.');
  // Tampered: another tool name or a later expiry in the token, with its MAC kept.
  expect(tokens.redeem([parts[0], 'send_certificate', ...parts.slice(2)].join('.'), { ...binding, tool: 'send_certificate' })).toBe('forged');
  expect(tokens.redeem([...parts.slice(0, 5), (now + 10 * 60 * 60_000).toString(36), ...parts.slice(6)].join('.'), binding)).toBe('forged');
  expect(tokens.redeem(`${token.slice(0, -2)}AA`, binding)).toBe('forged');
  // A token another server (another key) made.
  expect(new ConfirmationTokens(fresh()).redeem(token, binding)).toBe('forged');
  now += CONFIRMATION_TTL_MS + 1;
  expect(tokens.redeem(token, binding)).toBe('expired');
  now -= 2;
  expect(tokens.redeem(token, { ...binding, args: { confirmationToken: 'another', certificateId: 'CERT-1' } })).toBeUndefined();
  expect(tokens.redeem(token, binding)).toBe('used');
});

test('the key survives across instances (processes) sharing the folder; a lost memory of used tokens renews it, so old tokens fail', () => {
  const dir = fresh();
  const a = new ConfirmationTokens(dir);
  const first = a.issue(binding).token;
  const second = a.issue(binding).token;
  expect(new ConfirmationTokens(dir).redeem(first, binding)).toBeUndefined();
  expect(new ConfirmationTokens(dir).redeem(first, binding)).toBe('used');
  expect(fs.statSync(path.join(dir, 'key')).mode & 0o777).toBe(0o600);
  fs.rmSync(path.join(dir, 'used'), { recursive: true });
  expect(new ConfirmationTokens(dir).redeem(first, binding)).toBe('forged'); // not replayed
  expect(new ConfirmationTokens(dir).redeem(second, binding)).toBe('forged');
  const third = a.issue(binding).token;
  fs.writeFileSync(path.join(dir, 'key'), 'not hex');
  expect(a.redeem(third, binding)).toBe('forged');
});

test('a state folder that cannot be written: a clear error naming CERTSVC_STATE_DIR, and no token', () => {
  const blocked = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-confirm-')), 'file');
  fs.writeFileSync(blocked, 'not a folder');
  const tokens = new ConfirmationTokens(path.join(blocked, 'mcp', 'confirmations'));
  expect(() => tokens.issue(binding)).toThrow(`Invalid "CERTSVC_STATE_DIR": ${blocked}/mcp/confirmations cannot be made (ENOTDIR): move ${blocked} away (a file where a folder should be), or set CERTSVC_STATE_DIR to a folder of your own.`);
});

test('a fresh confirmations folder is made 0700, used/ too, and the key 0600', () => {
  const dir = fresh();
  new ConfirmationTokens(dir).issue(binding);
  expect([dir, path.join(dir, 'used'), path.join(dir, 'key')].map((p) => fs.lstatSync(p).mode & 0o777)).toEqual([0o700, 0o700, 0o600]);
});

// Another user of the machine made the folder, or part of it, first (a state folder in a shared
// place such as /tmp): their key would confirm tokens they made, and a `used/` they control would
// let a token be replayed. Each is refused, with no token made or accepted.
describeWithOtherUser('what another local user planted is refused, and no token of theirs confirms anything', () => {
  const other = otherUser();
  const shared = sharedFolder();
  /** A token sealed with that user's own key: they run this server in a folder of theirs. */
  const theirToken = (dir: string) => other.as(() => new ConfirmationTokens(dir).issue(binding).token);
  /** A confirmations folder's path (not made) in folders of ours they may look in. */
  const lookable = () => {
    const dir = fresh();
    fs.chmodSync(path.dirname(path.dirname(dir)), 0o755);
    fs.mkdirSync(path.dirname(dir), { mode: 0o755 });
    return dir;
  };
  /** A folder of ours their group could write (the way a planted file gets into it), closed with chmod 700 after. */
  const groupWritable = () => {
    const dir = lookable();
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chownSync(dir, 0, other.gid);
    fs.chmodSync(dir, 0o770);
    return dir;
  };

  test('the whole folder made by them', () => {
    const state = path.join(shared.path, 'certsvc');
    const dir = path.join(state, 'mcp', 'confirmations');
    const token = theirToken(dir); // our own code, run by them, made the folders and the key
    expect(fs.statSync(state).uid).toBe(other.uid);
    const tokens = new ConfirmationTokens(dir);
    const refusal = `Invalid "CERTSVC_STATE_DIR": ${dir} is inside ${state}, which belongs to another user (uid ${other.uid}), who could replace it: set CERTSVC_STATE_DIR to a folder of your own.`;
    expect(() => tokens.redeem(token, binding)).toThrow(refusal);
    expect(() => tokens.issue(binding)).toThrow(refusal);
  });

  test('their key in our folder', () => {
    const dir = groupWritable();
    const theirs = path.join(shared.path, 'theirs-key');
    const token = theirToken(theirs);
    other.sh(`mkdir ${dir}/used && cp ${theirs}/key ${dir}/key`);
    fs.chmodSync(dir, 0o700); // the folder is closed again; what they put in it stays
    fs.chownSync(path.join(dir, 'used'), 0, 0);
    const key = path.join(dir, 'key');
    const tokens = new ConfirmationTokens(dir);
    const refusal = `Invalid "CERTSVC_STATE_DIR": ${key} belongs to another user (uid ${other.uid}), so what is in it is not trusted: remove it if you can (rm -r ${key}), or set CERTSVC_STATE_DIR to a folder of your own.`;
    expect(() => tokens.redeem(token, binding)).toThrow(refusal);
    expect(() => tokens.issue(binding)).toThrow(refusal);
    fs.rmSync(key);
    expect(tokens.redeem(token, binding)).toBe('forged'); // removed: a new key of ours, and their token is nothing
  });

  test('used/ a link into their folder (they could delete what it remembers, and replay a token)', () => {
    const dir = lookable();
    const tokens = new ConfirmationTokens(dir);
    const token = tokens.issue(binding).token; // our key, our used/, while the folder was ours alone
    fs.chownSync(dir, 0, other.gid);
    fs.chmodSync(dir, 0o770);
    const theirs = path.join(shared.path, 'theirs-used');
    other.sh(`mkdir -m 700 ${theirs} && mv ${dir}/used ${dir}/used.old && ln -s ${theirs} ${dir}/used`);
    fs.chmodSync(dir, 0o700);
    const used = path.join(dir, 'used');
    expect(() => tokens.redeem(token, binding)).toThrow(`Invalid "CERTSVC_STATE_DIR": ${used} is a symbolic link, where a folder was expected: remove it (rm ${used}), or set CERTSVC_STATE_DIR to a folder of your own.`);
    expect(fs.readdirSync(theirs)).toEqual([]); // nothing was recorded there
  });

  test('a folder their group can write', () => {
    const dir = groupWritable();
    const token = theirToken(path.join(shared.path, 'theirs-group'));
    other.sh(`cp ${shared.path}/theirs-group/key ${dir}/key && mkdir ${dir}/used`); // they can, through the group
    const tokens = new ConfirmationTokens(dir);
    const refusal = `Invalid "CERTSVC_STATE_DIR": ${dir} can be written by other users (mode 770): chmod 700 ${dir}, or set CERTSVC_STATE_DIR to a folder of your own.`;
    expect(() => tokens.redeem(token, binding)).toThrow(refusal);
    expect(() => tokens.issue(binding)).toThrow(refusal);
  });

  test('a confirmations folder this user cannot write: the error names it and the fix, and no token is made', () => {
    const state = lookable();
    fs.mkdirSync(state, { mode: 0o755 }); // root's: they may look in, not write
    expect(() => other.as(() => new ConfirmationTokens(state).issue(binding))).toThrow(
      `Invalid "CERTSVC_STATE_DIR": ${state} cannot be written by this user (uid ${other.uid}; it belongs to uid 0, mode 755): make it yours (sudo chown ${other.uid} ${state}), or set CERTSVC_STATE_DIR to a folder of your own.`,
    );
    expect(fs.readdirSync(state)).toEqual([]);
  });
});
