// Which failures mean "nothing was sent" (connectFailure): the one place in the core that decides
// it, so every host (the CLI, the Zapier app, the n8n node) gives the same hint. A refused TLS
// certificate is one (the handshake stops before the request is written); an https:// URL at a
// plain-http server is one however the HTTP stack words it (Node's ERR_SSL_… code, or
// node-fetch's EPROTO with OpenSSL's words).
import vm from 'node:vm';
import { CertificateServiceError, createClient } from '@certificate-service/sdk';
import { classifyNetworkError, connectFailure, networkError, transportError } from '../../shared/sdk/src/network-errors';
import { noAnswerServers } from '../support/tls';

const OPENSSL_TOO_LONG = 'write EPROTO C05CA35F1D7F0000:error:0A0000C6:SSL routines:tls_get_more_records:packet length too long:../deps/openssl/openssl/ssl/record/methods/tls_common.c:662:\n';
const wrapped = (cause: object) => Object.assign(new Error('request failed'), { cause });

test.each([
  [{ code: 'ECONNREFUSED' }, 'ECONNREFUSED', 'NETWORK_ERROR'],
  [{ code: 'ERR_SSL_WRONG_VERSION_NUMBER' }, 'ERR_SSL_WRONG_VERSION_NUMBER', 'NETWORK_ERROR'],
  [{ code: 'EPROTO', message: OPENSSL_TOO_LONG }, 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'NETWORK_ERROR'],
  [{ code: 'EPROTO', message: 'write EPROTO' }, undefined, 'NETWORK_ERROR'],
  [{ code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' }, 'DEPTH_ZERO_SELF_SIGNED_CERT', 'NETWORK_ERROR'],
  [{ code: 'SELF_SIGNED_CERT_IN_CHAIN' }, 'SELF_SIGNED_CERT_IN_CHAIN', 'NETWORK_ERROR'],
  [{ code: 'CERT_HAS_EXPIRED' }, 'CERT_HAS_EXPIRED', 'NETWORK_ERROR'],
  [{ code: 'ERR_TLS_CERT_ALTNAME_INVALID' }, 'ERR_TLS_CERT_ALTNAME_INVALID', 'NETWORK_ERROR'],
  [{ code: 'ECONNRESET' }, undefined, 'NETWORK_ERROR'],
])('%j, wrapped as a host wraps it: connect failure %s, %s', (cause, connect, kind) => {
  expect(connectFailure(wrapped(cause))).toBe(connect);
  expect(classifyNetworkError(wrapped(cause))).toBe(kind);
});

test('a self-signed certificate, through createClient (the CLI\'s transport): nothing sent, the certificate named, the core\'s hint', async () => {
  const servers = await noAnswerServers();
  try {
    const origin = servers.selfSigned;
    const error = (await createClient({ baseUrl: origin, apiKey: 'sk_live_tls_test_0001' }).auth().catch((e: unknown) => e)) as CertificateServiceError;
    expect(error).toBeInstanceOf(CertificateServiceError);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', phase: 'request', outcomeUnknown: false, hintTopic: 'unreachable', detail: { connect: 'DEPTH_ZERO_SELF_SIGNED_CERT' } });
    expect(error.message).toMatch(new RegExp(`^POST /auth could not connect to ${origin.replace(/\./g, '\\.')}: its TLS certificate is not trusted here \\(DEPTH_ZERO_SELF_SIGNED_CERT: self-signed`));
    expect(error.hint).toMatch(/^Nothing was sent\. Check the base URL/);
    expect(servers.requests()).toBe(0);
  } finally {
    await servers.close();
  }
});

test("an error from another realm (a vm context, a jest worker, an isolate) keeps its words: Node's own errors fail `instanceof Error` there", () => {
  const foreign = vm.runInNewContext("Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })") as { message: string };
  expect(foreign instanceof Error).toBe(false);
  const identity = { method: 'POST', path: '/auth' };
  const error = networkError('NETWORK_ERROR', foreign, identity, 'http://127.0.0.1:9/api/v1', true);
  expect(error.message).toBe('POST /auth could not connect to http://127.0.0.1:9 (connect ECONNREFUSED 127.0.0.1:9).');
  expect((error.cause as Error).message).toBe('connect ECONNREFUSED 127.0.0.1:9');
  expect(transportError(vm.runInNewContext("new TypeError('bad header')"), identity, true).message).toMatch(/\(TypeError: bad header\)/);
});
