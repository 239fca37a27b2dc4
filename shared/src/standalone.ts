import { CertificateServiceClient, type ClientOptions } from './client';
import { createFetchTransport } from './fetch-transport';

export * from './index';
export { createFetchTransport };

/** Waits with a plain timer; the core itself takes its `sleep` from the host. */
export const timerSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A client for scripts and servers: fetch transport, timer waits, Bearer auth added by the core. */
export function createClient(
  options: Omit<ClientOptions, 'transport' | 'sleep'> & { apiKey: string; timeoutMs?: number; sleep?: ClientOptions['sleep'] },
): CertificateServiceClient {
  return new CertificateServiceClient({ sleep: timerSleep, ...options, transport: createFetchTransport({ timeoutMs: options.timeoutMs }) });
}
