// Sealed confirmation tokens: bound to the tool, the arguments, the targets and the service,
// with an expiry; good once for every process sharing the state folder; a lost or unreadable
// memory of used tokens renews the key, so old tokens fail rather than replay.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfirmationTokens, confirmationsDir, serviceIdentity, stateDir, CONFIRMATION_TTL_MS } from '@certificate-service/mcp';

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
  expect(() => tokens.issue(binding)).toThrow(/^Invalid "CERTSVC_STATE_DIR": confirmation tokens are kept in .*, which cannot be written \(ENOTDIR\)/);
});
