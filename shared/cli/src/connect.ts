import { clientFromEnv, createUndiciTransport, type CertificateServiceClient, type HttpRequest, type HttpResponse, type Transport, UsageError } from '@certificate-service/sdk';

/** How long `certsvc` waits for a connection before saying nothing answers. */
export const CONNECT_TIMEOUT_MS = 5_000;

export interface ConnectionFlags {
  apiKey?: string;
  baseUrl?: string;
}

export interface Connection {
  client: CertificateServiceClient;
  /** HTTP requests sent so far. */
  requests(): number;
  /** When the client is waiting (rate-limit pacing, Retry-After, backoff): the epoch ms it waits until. */
  waitingUntil(): number | undefined;
  /** Calls `listener` with every request sent from now on and its answer (certsvc doctor reads them). */
  observe(listener: (request: HttpRequest, response: HttpResponse) => void): void;
}

/** A client from the flags, else CERTSVC_API_KEY / CERTSVC_BASE_URL, that reports its requests and waits. */
export function connect(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Connection {
  // A shorter connect timeout than the SDK's 10 s: someone is waiting at the terminal, and an
  // address that never answers should say so soon (with a hint about the base URL).
  const undici = createUndiciTransport({ connectTimeoutMs: CONNECT_TIMEOUT_MS });
  let count = 0;
  let waitingUntil: number | undefined;
  const listeners: Array<(request: HttpRequest, response: HttpResponse) => void> = [];
  // Every attempt counts, retries included: it is what the rate limit counts.
  const transport: Transport = async (request) => {
    count++;
    const response = await undici(request);
    for (const listener of listeners) listener(request, response);
    return response;
  };
  const client = clientFromEnv(env, {
    apiKey: flags.apiKey,
    baseUrl: flags.baseUrl,
    missing: (variable) =>
      new UsageError(
        variable === 'CERTSVC_API_KEY'
          ? 'No API key: set CERTSVC_API_KEY or pass --api-key.'
          : 'No service URL: set CERTSVC_BASE_URL (e.g. https://<your service host>/api/v1) or pass --base-url.',
      ),
    transport,
    sleep: (ms) => {
      waitingUntil = Date.now() + ms;
      return new Promise<void>((resolve) => setTimeout(resolve, ms)).finally(() => (waitingUntil = undefined));
    },
  });
  return { client, requests: () => count, waitingUntil: () => waitingUntil, observe: (listener) => void listeners.push(listener) };
}
