// The connection test against a server it cannot talk to, over real sockets (no nock): a closed
// port, an https:// URL at a plain-http server, and a self-signed certificate each fail with the
// core's hint (nothing was sent; what to check), as `certsvc` says it, in Zapier's words, which
// do not claim that localhost cannot work: during `zapier-platform invoke` it does.
import { CertificateServiceError } from '@certificate-service/sdk/core';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { API_KEY, app, appTester, caught } from './helpers';
import { noAnswerServers, type NoAnswerServers } from '../support/tls';

const test = (baseUrl: string) => appTester(app.authentication.test, { authData: { apiKey: API_KEY, baseUrl } });
const CORE_UNREACHABLE = new CertificateServiceError({ code: 'NETWORK_ERROR', message: '', detail: { connect: 'ECONNREFUSED' } }).hint;
const CORE_NOT_TLS = new CertificateServiceError({ code: 'NETWORK_ERROR', message: '', detail: { connect: 'ERR_SSL_PACKET_LENGTH_TOO_LONG' } }).hint;

let servers: NoAnswerServers;
let sandbox: Sandbox;

beforeAll(async () => {
  servers = await noAnswerServers();
  sandbox = await createSandbox({ rateLimit: false });
});
afterAll(async () => {
  await servers.close();
  await sandbox.close();
});

const message = async (baseUrl: string) => {
  const error = await caught(test(baseUrl));
  expect(error.name).toBe('AppError');
  const text = String(error.json?.message);
  expect(text).not.toContain(API_KEY);
  // Zapier's words name the connection's field and do not say that localhost cannot work.
  expect(text).toMatch(/Check the API Base URL of your Certificate Service connection\./);
  expect(text).toMatch(/works only where the app runs on your machine \(zapier-platform invoke\)/);
  expect(text).not.toMatch(/does not work/);
  return text;
};

it('a closed port: could not connect, nothing was sent, check the base URL', async () => {
  const baseUrl = servers.closed;
  const text = await message(baseUrl);
  expect(text).toMatch(new RegExp(`^POST /auth could not connect to ${baseUrl.replace(/\./g, '\\.')} \\(.*ECONNREFUSED`));
  expect(text).toContain(CORE_UNREACHABLE);
});

it('https:// at a plain-http server: the core\'s TLS hint (use an http:// base URL for localhost)', async () => {
  const text = await message(servers.plainHttp);
  expect(text).toContain(CORE_NOT_TLS);
});

it('a self-signed certificate: not trusted here, nothing was sent (not "the HTTP layer failed")', async () => {
  const text = await message(servers.selfSigned);
  expect(text).toMatch(/could not connect to https:\/\/127\.0\.0\.1:\d+: its TLS certificate is not trusted here \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN): self-signed/);
  expect(text).toContain(CORE_UNREACHABLE);
  expect(text).not.toMatch(/HTTP layer/);
});

it('localhost works while the app runs on this machine: the test passes against the sandbox on 127.0.0.1', async () => {
  await expect(appTester(app.authentication.test, { authData: { apiKey: sandbox.apiKey!, baseUrl: sandbox.baseUrl } })).resolves.toMatchObject({ workspaceId: 'ws_demo' });
});
