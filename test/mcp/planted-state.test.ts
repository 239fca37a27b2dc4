// The MCP server with a state folder another local user made first (CERTSVC_STATE_DIR in a shared
// place such as /tmp): a token sealed with their key archived a batch with no dry run (issue 42).
// Now the call is a tool error naming the folder and the fix, and no write request is made; the
// same for the in-flight markers of issue_certificates, and for a folder this user cannot write.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@certificate-service/sdk';
import { ConfirmationTokens, serviceIdentity } from '@certificate-service/mcp';
import { connect } from './harness';
import { startStub, type Stub } from './stub';
import { describeWithOtherUser, otherUser, sharedFolder } from '../support/other-user';

describeWithOtherUser('a state folder another local user planted', () => {
  const other = otherUser();
  const shared = sharedFolder();
  let stub: Stub;
  beforeAll(async () => void (stub = await startStub()));
  afterAll(() => stub.close());
  const client = () => createClient({ baseUrl: stub.baseUrl, apiKey: 'key_planted' });
  const archive = { tool: 'archive_batch', args: { batchId: 'b1' }, target: ['b1'] };

  test('their confirmation key: their token archives nothing, and no dry run hands out one of theirs', async () => {
    const state = path.join(shared.path, 'certsvc');
    const dir = path.join(state, 'mcp', 'confirmations');
    // They run the server first, with the same state folder, and seal a token for our call.
    const theirToken = other.as(() => new ConfirmationTokens(dir).issue({ ...archive, service: serviceIdentity(client().baseUrl, undefined) }).token);
    const mcp = await connect({ client: client(), tokens: new ConfirmationTokens(dir) });
    try {
      for (const args of [{ batchId: 'b1', confirmationToken: theirToken }, { batchId: 'b1' }]) {
        const result = await mcp.call('archive_batch', args);
        expect(result.isError).toBe(true);
        expect(result.text).toBe(`VALIDATION_ERROR: Invalid "CERTSVC_STATE_DIR": ${dir} is inside ${state}, which belongs to another user (uid ${other.uid}), who could replace it: set CERTSVC_STATE_DIR to a folder of your own.`);
      }
    } finally {
      await mcp.close();
    }
    expect(stub.writes()).toEqual([]);
  });

  test('their in-flight markers folder: issue_certificates stops before any request, saying why', async () => {
    const state = path.join(shared.path, 'certsvc-issue');
    other.sh(`mkdir -m 755 ${state} ${state}/in-flight`);
    const before = stub.requests.length;
    const mcp = await connect({ client: client() });
    const saved = process.env.CERTSVC_STATE_DIR; // the tool reads the server's environment
    process.env.CERTSVC_STATE_DIR = state;
    try {
      const result = await mcp.call('issue_certificates', { batchId: 'b1', recipients: [{ name: 'Ada', email: 'ada@example.com' }] });
      expect(result.isError).toBe(true);
      expect(result.text).toBe(`VALIDATION_ERROR: Invalid "CERTSVC_STATE_DIR": ${state}/in-flight is inside ${state}, which belongs to another user (uid ${other.uid}), who could replace it: set CERTSVC_STATE_DIR to a folder of your own.`);
    } finally {
      process.env.CERTSVC_STATE_DIR = saved;
      await mcp.close();
    }
    expect(stub.requests.slice(before)).toEqual([]);
  });

  test('a state folder the server\'s user cannot write: the tool error names it and the fix', async () => {
    const top = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-mcp-unwritable-'));
    fs.chmodSync(top, 0o755);
    const state = path.join(top, 'state'); // root's; the server runs as the other user
    fs.mkdirSync(state, { mode: 0o755 });
    const tokens = new ConfirmationTokens(path.join(state, 'mcp', 'confirmations'));
    const mcp = await connect({ client: client(), tokens });
    try {
      // Once as root first: every module the call loads is loaded before it runs as the other user.
      expect((await mcp.call('archive_batch', { batchId: 'b1' })).data).toMatchObject({ reason: 'confirmationRequired' });
      fs.rmSync(path.join(state, 'mcp'), { recursive: true });
      const result = await other.asAsync(() => mcp.call('archive_batch', { batchId: 'b1' }));
      expect(result.isError).toBe(true);
      expect(result.text).toBe(`VALIDATION_ERROR: Invalid "CERTSVC_STATE_DIR": ${state}/mcp/confirmations cannot be made (EACCES): make ${state} writable, or set CERTSVC_STATE_DIR to a folder of your own.`);
    } finally {
      await mcp.close();
      fs.rmSync(top, { recursive: true, force: true });
    }
    expect(stub.writes()).toEqual([]);
  });
});
