// `certsvc issue` checks its state folder (the in-flight markers) before any request (issue 42): one
// another local user made first, or one this user cannot write, is an error naming the folder and
// the fix (exit 2), and nothing is sent. A fresh one is made 0700.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@certificate-service/sdk';
import { cliWorld, runCli } from '../support/cli';
import { describeWithOtherUser, otherUser, sharedFolder } from '../support/other-user';

jest.setTimeout(60_000);

const world = cliWorld({ rateLimit: false }, 'certsvc-state-');
const requests = () => Object.values(world.sb.controls.counters().requests.byRoute).reduce((n, c) => n + c, 0);

/** A batch, a CSV of one row they may read, and `certsvc issue` with `state` as CERTSVC_STATE_DIR. */
async function issueWith() {
  const ws = world.sb.controls.createWorkspace({ quota: 100 });
  const { id } = await createClient({ baseUrl: world.sb.baseUrl, apiKey: ws.apiKey }).createBatch({ title: 'State', designId: 'design_modern' });
  const csv = path.join(world.dir, `${id}.csv`);
  fs.writeFileSync(csv, 'name,email\nAda,ada@example.com\n');
  return (state: string) => runCli(['issue', '--batch', id, '--csv', csv], { CERTSVC_BASE_URL: world.sb.baseUrl, CERTSVC_API_KEY: ws.apiKey, CERTSVC_STATE_DIR: state });
}

test('a fresh state folder: in-flight/ made 0700, and the run issues', async () => {
  const certsvc = await issueWith();
  const state = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-state-fresh-')), 'state');
  const run = await certsvc(state);
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ issued: 1 });
  expect([state, path.join(state, 'in-flight')].map((p) => fs.statSync(p).mode & 0o777)).toEqual([0o700, 0o700]);
});

describeWithOtherUser('with a second local user', () => {
  const other = otherUser();
  const shared = sharedFolder();

  test('a state folder they made first: exit 2, the folder and the fix on stderr, and no request', async () => {
    const certsvc = await issueWith();
    const state = path.join(shared.path, 'certsvc');
    other.sh(`mkdir -m 755 ${state}`);
    world.sb.controls.resetCounters();
    const run = await certsvc(state);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `certsvc: Invalid "CERTSVC_STATE_DIR": ${state}/in-flight is inside ${state}, which belongs to another user (uid ${other.uid}), who could replace it: set CERTSVC_STATE_DIR to a folder of your own.\n`,
    });
    expect(requests()).toBe(0);
    expect(fs.readdirSync(state)).toEqual([]);
  });

  test('a state folder this user cannot write: exit 2, the folder and the fix, not a bare EACCES, and no request', async () => {
    const certsvc = await issueWith();
    const top = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-state-root-'));
    fs.chmodSync(top, 0o755);
    fs.chmodSync(world.dir, 0o755); // they may read the CSV
    const state = path.join(top, 'state');
    fs.mkdirSync(state, { mode: 0o755 }); // root's: they may look in, not write
    // Once as root first: every module the run loads is loaded before it runs as the other user.
    expect((await certsvc(path.join(top, 'warm-up'))).code).toBe(0);
    world.sb.controls.resetCounters();
    const run = await other.asAsync(() => certsvc(state));
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `certsvc: Invalid "CERTSVC_STATE_DIR": ${state}/in-flight cannot be made (EACCES): make ${state} writable, or set CERTSVC_STATE_DIR to a folder of your own.\n`,
    });
    expect(requests()).toBe(0);
  });
});
