// `certsvc subscriptions test`: against the sandbox it shows the first attempt's outcome (the
// CLI run in this process); against any other service it says where to look (the API has
// no delivery log), without asking that service anything more.
import { execFile } from 'node:child_process';
import { CertificateServiceClient, createClient, type HttpRequest } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { startReceiver, type Receiver } from '@certificate-service/sandbox/testing';
import type { Context } from '../../shared/cli/src/command';
import { runSubscriptionTest } from '../../shared/cli/src/subscriptions-test';
import { CLI } from '../support/built';
import { runCli } from '../support/cli';
import { freePort } from '../support/net';

jest.setTimeout(60_000);

let sb: Sandbox;
let receiver: Receiver;
beforeAll(async () => {
  sb = await createSandbox({ timeScale: 0.001 });
  receiver = await startReceiver();
}, 120_000);
afterAll(async () => {
  await receiver.close();
  await sb.close();
});

/** The command's context with this client and these streams (no other part of it is read). */
const context = (client: CertificateServiceClient, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream) => ({ connection: { client }, io: { stdout, stderr } }) as unknown as Context;

const certsvc = (args: string[], env: Record<string, string>) => runCli(args, { CERTSVC_BASE_URL: sb.baseUrl, ...env });

async function subscribe(url: string) {
  const ws = sb.controls.createWorkspace({});
  const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
  const sub = await client.createSubscription({ url, events: ['certificate.issued'] });
  return { ws, sub };
}

test('against the sandbox, a receiver that answers: the delivery arrived (attempt 1, 200)', async () => {
  const { ws, sub } = await subscribe(receiver.url);
  const run = await certsvc(['subscriptions', 'test', sub.id], { CERTSVC_API_KEY: ws.apiKey });
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ id: sub.id, queued: true, deliveryId: expect.stringMatching(/^whd_/) });
  const { deliveryId } = JSON.parse(run.stdout) as { deliveryId: string };
  expect(run.stderr).toBe(`Sandbox: delivery ${deliveryId}, attempt 1: ${receiver.url} answered 200: the delivery arrived. Every attempt: ${sb.url}/__sandbox/deliveries (or ${sb.url}/ in a browser).\n`);
  expect(run.stdout + run.stderr).not.toContain(ws.apiKey);
});

test('against the sandbox, a URL nothing listens on: the attempt failed, and the service retries', async () => {
  const url = `http://127.0.0.1:${await freePort()}/hooks`;
  const { ws, sub } = await subscribe(url);
  const run = await certsvc(['subscriptions', 'test', sub.id], { CERTSVC_API_KEY: ws.apiKey });
  expect(run.code).toBe(0); // the service queued it; the outcome is what stderr says
  expect(run.stderr).toMatch(new RegExp(`^Sandbox: delivery whd_\\S+, attempt 1: ${url.replace(/[.]/g, '\\.')} could not be reached \\(ECONNREFUSED\\): the service will retry it`));
});

test('against another service (https), it says where to look and asks nothing but the test call', async () => {
  const requests: string[] = [];
  const client = new CertificateServiceClient({
    baseUrl: 'https://certs.example.com/api/v1',
    apiKey: 'sk_live_example_000000',
    sleep: async () => {},
    transport: async (request: HttpRequest) => {
      requests.push(`${request.method} ${request.url}`);
      return { status: 202, headers: {}, body: '' };
    },
  });
  const fetched = jest.fn<ReturnType<typeof fetch>, Parameters<typeof fetch>>();
  const out: string[] = [];
  const err: string[] = [];
  const sink = (to: string[]) => ({ write: (chunk: string) => (to.push(chunk), true) }) as unknown as NodeJS.WritableStream;
  const code = await runSubscriptionTest({ subscriptionId: 'whs_1' }, context(client, sink(out), sink(err)), { fetch: fetched as unknown as typeof fetch });
  expect(code).toBe(0);
  expect(requests).toEqual(['POST https://certs.example.com/api/v1/webhooks/subscriptions/whs_1/test']);
  expect(fetched).not.toHaveBeenCalled(); // the live service is never probed for sandbox routes
  expect(JSON.parse(out.join(''))).toEqual({ id: 'whs_1' });
  expect(err.join('')).toMatch(/^The service queued a sample delivery to the subscription's URL; it keeps no delivery log you can read\. To see whether it arrived, look at your receiver's logs/);
});

test('an http:// base URL that is not the sandbox (its control route does not answer with that base URL): where to look', async () => {
  const { ws, sub } = await subscribe(receiver.url);
  const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
  const notSandbox = jest.fn(async () => new Response('not found', { status: 404 }));
  const err: string[] = [];
  const sink = (to: string[]) => ({ write: (chunk: string) => (to.push(chunk), true) }) as unknown as NodeJS.WritableStream;
  await runSubscriptionTest({ subscriptionId: sub.id }, context(client, sink([]), sink(err)), { fetch: notSandbox as unknown as typeof fetch });
  expect(notSandbox).toHaveBeenCalledTimes(1);
  expect(err.join('')).toMatch(/look at your receiver's logs/);
});

test('the built command reads the sandbox\'s log with its type only: loading it loads no sandbox module', async () => {
  const probe = `require(${JSON.stringify(CLI.replace(/main\.js$/, 'subscriptions-test.js'))}); console.log(JSON.stringify(Object.keys(require.cache)))`;
  const loaded = await new Promise<string[]>((resolve, reject) =>
    execFile(process.execPath, ['-e', probe], (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout) as string[]))),
  );
  expect(loaded.some((file) => file.includes('subscriptions-test.js'))).toBe(true);
  expect(loaded.filter((file) => /[\\/]shared[\\/]sandbox[\\/]|@certificate-service[\\/]sandbox/.test(file))).toEqual([]);
});
