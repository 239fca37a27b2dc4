import { CertificateServiceClient, type HttpRequest, type HttpResponse, type Transport } from '@certificate-service/sdk/core';
import { BASE, KEY } from './helpers';

export type Step = HttpResponse | Error;

export function reply(status: number, body: unknown = {}, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers, body: body === '' ? '' : JSON.stringify(body) };
}

export function netError(code: string): Error {
  return Object.assign(new Error(`socket ${code}`), { code });
}

/** A transport that plays back a script and records every request it was given. */
export function scripted(steps: Step[]) {
  const requests: HttpRequest[] = [];
  const transport: Transport = async (request) => {
    requests.push(request);
    const step = steps.shift();
    if (!step) throw new Error(`unexpected request ${request.method} ${request.url}`);
    if (step instanceof Error) throw step;
    return step;
  };
  const sleeps: number[] = [];
  let clock = 1_700_000_000_000;
  const client = new CertificateServiceClient({
    baseUrl: BASE,
    apiKey: KEY,
    transport,
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
  });
  return { client, requests, sleeps, left: () => steps.length };
}
