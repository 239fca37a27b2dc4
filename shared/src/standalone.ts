import { CertificateServiceClient, type ClientOptions } from './client';
import { createFetchTransport } from './fetch-transport';

export * from './index';
export { createFetchTransport };

/** A client for scripts and servers: fetch transport, Bearer auth added by the core. */
export function createClient(options: Omit<ClientOptions, 'transport'> & { apiKey: string; timeoutMs?: number }): CertificateServiceClient {
  return new CertificateServiceClient({ ...options, transport: createFetchTransport({ timeoutMs: options.timeoutMs }) });
}
