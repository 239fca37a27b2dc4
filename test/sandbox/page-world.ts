// What the overview page tests (page.test.ts in-process, page-chromium.e2e.test.ts in a browser)
// put in a sandbox: a batch with certificates in every email state, two subscriptions (one
// receiver answers 200, one keeps failing), their deliveries, hostile names, a large batch.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from '@certificate-service/sandbox';
import { Api, startReceiver } from '@certificate-service/sandbox/testing';

/** Values that would run or inject markup if the page did not escape them. */
export const HOSTILE = {
  name: '<script>alert(1)</script>',
  variable: '"><img src=x onerror=alert(2)>',
  value: '<b>bold</b> & "quoted"',
  title: '<img src=x onerror=alert(3)> Q&A',
  /** What the failing receiver answers: markup, shown as text. */
  answer: '<h1>Service Unavailable</h1>',
};

export interface World {
  api: Api;
  batchId: string;
  okUrl: string;
  failingUrl: string;
  /** Every signing secret the API handed out (create and rotate). */
  secrets: string[];
  close(): Promise<void>;
}

/**
 * The "Advanced Welding" batch: Ada (sent, with course and score), Grace (a bounce: failed),
 * Alan (never sent). `certificate.issued` and `.sent` go to a receiver that answers 200,
 * `certificate.failed` to one that answers 503; resolves once the failing one was tried 3 times.
 */
export async function weldingWorld(sb: Sandbox): Promise<World> {
  const api = new Api(sb.baseUrl, sb.apiKey);
  const ok = await startReceiver(() => 200);
  const failing = http.createServer((_req, res) => res.writeHead(503, { 'Content-Type': 'text/html' }).end(HOSTILE.answer));
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  const failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/webhooks`;

  const secrets: string[] = [];
  const subscribe = async (url: string, events: string[]) => {
    const res = await api.post('/webhooks/subscriptions', { url, events });
    expect(res.status).toBe(201);
    secrets.push(res.body.secret);
    return res.body.id as string;
  };
  await subscribe(ok.url, ['certificate.issued', 'certificate.sent']);
  const failingId = await subscribe(failingUrl, ['certificate.failed']);
  const rotated = await api.post(`/webhooks/subscriptions/${failingId}/rotate-secret`);
  secrets.push(rotated.body.secret);

  const batch = await api.post('/batches', { title: 'Advanced Welding, Spring 2026', designId: 'design_classic' });
  const batchId = batch.body.id as string;
  const issue = (body: object) => api.post(`/batches/${batchId}/recipients`, body).then((r) => expect(r.status).toBe(201));
  await issue({ name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'Advanced Welding', score: '97' }, send: true });
  await issue({ name: 'Grace Hopper', email: 'grace@bounce.test', data: { course: 'Advanced Welding' }, send: true });
  await issue({ name: 'Alan Turing', email: 'alan@example.com', data: { course: 'Advanced Welding', score: '88' } });
  await sb.controls.waitForDeliveries((log) => {
    const good = log.filter((a) => a.url === ok.url && a.outcome === 'succeeded').length;
    const bad = log.filter((a) => a.url === failingUrl).length;
    return good === 4 && bad >= 3; // 3 issued + Ada's sent; Grace's failed, tried 3 times
  }, 10_000);

  return {
    api,
    batchId,
    okUrl: ok.url,
    failingUrl,
    secrets,
    close: async () => {
      await ok.close();
      await new Promise((resolve) => failing.close(resolve));
    },
  };
}

/** A batch of `count` certificates (bulk, 100 at a time), each with a `course` variable. */
export async function largeBatch(api: Api, title: string, count: number): Promise<string> {
  const batchId = (await api.post('/batches', { title, designId: 'design_minimal' })).body.id as string;
  for (let start = 0; start < count; start += 100) {
    const recipients = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({
      name: `Learner ${start + i + 1}`,
      email: `learner${start + i + 1}@example.com`,
      data: { course: 'Onboarding' },
    }));
    const res = await api.post(`/batches/${batchId}/recipients/bulk`, { recipients });
    expect(res.status).toBe(201);
  }
  return batchId;
}

/** A batch whose title, certificate name, variable name and value are all markup. */
export async function hostileBatch(api: Api): Promise<string> {
  const batchId = (await api.post('/batches', { title: HOSTILE.title, designId: 'design_classic' })).body.id as string;
  const res = await api.post(`/batches/${batchId}/recipients`, {
    name: HOSTILE.name,
    email: 'mallory@example.com',
    data: { course: HOSTILE.value, [HOSTILE.variable]: HOSTILE.value },
  });
  expect(res.status).toBe(201);
  return batchId;
}

/** GET a page of the sandbox as a browser asks for it. */
export async function getHtml(url: string): Promise<{ status: number; type: string | null; html: string }> {
  const res = await fetch(url, { headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
  return { status: res.status, type: res.headers.get('content-type'), html: await res.text() };
}

/**
 * How the page writes a date, read here from `toUTCString()` ("Sat, 28 Nov 2026 14:03:07 GMT"),
 * not from the page's code: "28 Nov 2026, 14:03 UTC" (with seconds: "14:03:07 UTC").
 */
export function readable(iso: string, seconds = false): string {
  const [, day, month, year, clock] = /^\w+, (\d+) (\w+) (\d+) (\d\d:\d\d:\d\d) GMT$/.exec(new Date(iso).toUTCString())!;
  return `${Number(day)} ${month} ${year}, ${seconds ? clock : clock.slice(0, 5)} UTC`;
}
