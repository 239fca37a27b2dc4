// The entry point for apps (`@certificate-service/sdk`): the core, plus what a Node app needs on
// top of it: a real HTTP transport (undici), a timer, and webhook receivers for its web framework.
import { CertificateServiceClient, type ClientOptions } from './client';
import { createFetchTransport } from './fetch-transport';
import { validationError } from './errors';
import { apiKeyFrom } from './validation';
import type { Transport } from './transport';
import { createUndiciTransport, type UndiciTransportOptions } from './undici-transport';

export * from './core';
export * from './receivers';
export { createFetchTransport, createUndiciTransport, type UndiciTransportOptions };
// Delivery stores that outlive a process: one machine (SQLite), every machine (the app's Redis or Postgres client).
export { fileStore, DEFAULT_KEEP_DAYS, type FileStore, type FileStoreOptions } from './file-store';
export { redisStore, type RedisClientLike, type RedisStoreOptions } from './redis-store';
export { postgresStore, type PostgresQueryable, type PostgresStoreOptions } from './postgres-store';
export type { PooledTransport } from './undici-transport';
// Node only (files): the state folder (checked, as ssh checks ~/.ssh, before it is trusted), and
// in-flight markers that keep a retry in another process from issuing twice.
export { stateDir, privatePath, type PrivateKind, type PrivatePathOptions } from './state-dir';
export { fileInFlightMarkers, type FileMarkerOptions } from './in-flight-files';
export { UsageError } from './usage-error';

/** Waits with a plain timer; the core itself takes its `sleep` from the host. */
export const timerSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// `baseUrl` and `apiKey` take `string | undefined`, so `process.env.…` type-checks under `strict`;
// a missing one is a VALIDATION_ERROR naming the field, before any request.
export type CreateClientOptions = Omit<ClientOptions, 'transport' | 'sleep' | 'baseUrl' | 'apiKey'> & {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  /** Headers and body timeout of the default transport, in ms (default 30,000). */
  timeoutMs?: number;
  /** Further settings of the default undici transport (pool size, connect timeout, dispatcher). */
  http?: UndiciTransportOptions;
  /** Your own transport instead of undici (e.g. `createFetchTransport()`). */
  transport?: Transport;
  sleep?: ClientOptions['sleep'];
};

/** A client for scripts and servers: undici keep-alive transport, timer waits, Bearer auth added by the core. */
export function createClient(options: CreateClientOptions): CertificateServiceClient {
  const { timeoutMs, http, transport, apiKey, ...rest } = options;
  if (!apiKeyFrom(apiKey)) throw validationError('apiKey', 'is required: the workspace API key (e.g. from CERTSVC_API_KEY)');
  return new CertificateServiceClient({
    sleep: timerSleep,
    ...rest,
    apiKey,
    baseUrl: rest.baseUrl as string, // checked by the client, which names the field when it is missing
    transport: transport ?? createUndiciTransport({ headersTimeoutMs: timeoutMs, bodyTimeoutMs: timeoutMs, ...http }),
  });
}

/** The environment variables every Node host (the CLI, the MCP server, scripts) reads the connection from. */
export const ENV_API_KEY = 'CERTSVC_API_KEY';
export const ENV_BASE_URL = 'CERTSVC_BASE_URL';

export type ClientFromEnvOptions = Omit<CreateClientOptions, 'apiKey' | 'baseUrl'> & {
  /** Values that win over the environment (a host's flags); blank counts as not given. */
  apiKey?: string;
  baseUrl?: string;
  /** The error for a missing variable, in the host's words (default: a VALIDATION_ERROR naming it). */
  missing?: (variable: typeof ENV_API_KEY | typeof ENV_BASE_URL) => Error;
};

/**
 * A client from CERTSVC_API_KEY and CERTSVC_BASE_URL (or the values given), checked before any
 * request: a missing one is an error naming the variable.
 */
export function clientFromEnv(env: NodeJS.ProcessEnv = process.env, options: ClientFromEnvOptions = {}): CertificateServiceClient {
  const { missing = (variable) => validationError(variable, 'is not set'), ...rest } = options;
  const apiKey = rest.apiKey ?? env[ENV_API_KEY];
  const baseUrl = rest.baseUrl ?? env[ENV_BASE_URL];
  if (!apiKeyFrom(apiKey)) throw missing(ENV_API_KEY);
  if (!baseUrl?.trim()) throw missing(ENV_BASE_URL);
  return createClient({ ...rest, apiKey, baseUrl });
}
