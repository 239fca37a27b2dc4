// Servers a client cannot talk to, over real sockets: a closed port, a plain-http server (for an
// https:// URL) and an https server with a self-signed certificate for 127.0.0.1.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './net';

export interface NoAnswerServers {
  /** `http://127.0.0.1:<a port nothing listens on>` */
  closed: string;
  /** `https://` at a plain-http server */
  plainHttp: string;
  /** `https://` at a server whose certificate is self-signed */
  selfSigned: string;
  /** Requests that reached the plain-http and self-signed servers (a TLS failure sends none). */
  requests(): number;
  close(): Promise<void>;
}

/** A throwaway self-signed certificate for 127.0.0.1, as a local or staging service may have. */
function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function noAnswerServers(): Promise<NoAnswerServers> {
  let requests = 0;
  const answer = (_req: http.IncomingMessage, res: http.ServerResponse) => (requests++, res.end('{}'));
  const plain = http.createServer(answer);
  const tls = https.createServer(selfSignedCertificate(), answer);
  const listen = (s: http.Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
  const [plainPort, tlsPort, closedPort] = await Promise.all([listen(plain), listen(tls), freePort()]);
  return {
    closed: `http://127.0.0.1:${closedPort}`,
    plainHttp: `https://127.0.0.1:${plainPort}`,
    selfSigned: `https://127.0.0.1:${tlsPort}`,
    requests: () => requests,
    close: async () => {
      await Promise.all([plain, tls].map((s) => new Promise((resolve) => s.close(resolve))));
    },
  };
}
