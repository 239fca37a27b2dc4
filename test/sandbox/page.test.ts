// The overview page at `/` (and the certificate viewer) as HTML, in-process: what it shows,
// that it escapes every value, shows no key or secret, pages, and that a JSON client of `/`
// still gets the 404 it always got. The same page in Chromium: page-chromium.e2e.test.ts.
import { createSandbox, DEMO_API_KEY, type Sandbox } from '@certificate-service/sandbox';
import { Api, type Receiver, startReceiver } from '@certificate-service/sandbox/testing';
import { escapeHtml, html } from '../../shared/sandbox/src/html';
import { getHtml, HOSTILE, hostileBatch, largeBatch, weldingWorld, type World } from './page-world';

let sb: Sandbox;
let world: World;
let hostileId: string;

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, timeScale: 0.001, mailDelayMs: 5 });
  world = await weldingWorld(sb);
  hostileId = await hostileBatch(world.api);
}, 30_000);
afterAll(async () => {
  await world?.close();
  await sb?.close();
});

/** The text of the element rows of one `<table>` body, markup removed, for content checks. */
function rowsOf(html: string): string[] {
  return [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim());
}

describe('a JSON client of / gets what it got before the page', () => {
  let plain: Sandbox; // default options: rate-limit headers as every sandbox has them
  beforeAll(async () => void (plain = await createSandbox()));
  afterAll(() => plain?.close());
  const before = {
    error: 'NOT_FOUND',
    message: 'No route GET /. The API lives under /api/v1.',
    detail: { method: 'GET', path: '/' },
  };

  test.each([[undefined], ['application/json'], ['*/*'], ['text/html;q=0, application/json']])('Accept %s: the JSON 404', async (accept) => {
    const res = await fetch(`${plain.url}/?page=2`, { headers: accept ? { Accept: accept } : {} });
    expect(res.status).toBe(404);
    const headers = Object.fromEntries([...res.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)));
    expect(headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'content-length': '115',
      'ratelimit-limit': '120',
      'ratelimit-remaining': '120',
      'ratelimit-reset': '60',
    });
    expect(await res.text()).toBe(JSON.stringify(before));
  });

  test('only GET is the page: POST / with Accept text/html is the JSON 404', async () => {
    const res = await fetch(`${plain.url}/`, { method: 'POST', headers: { Accept: 'text/html' } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toBe('No route POST /. The API lives under /api/v1.');
  });
});

describe('the page in a browser (Accept lists text/html)', () => {
  test('needs no key, is not counted, and shows batches, certificates, subscriptions and deliveries', async () => {
    sb.controls.resetCounters();
    const failingTries = () => sb.controls.deliveries().filter((a) => a.url === world.failingUrl).length;
    const triedBefore = failingTries(); // a retry may land while the page is read
    const page = await getHtml(`${sb.url}/`);
    const triedAfter = failingTries();
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(sb.controls.counters().requests.total).toBe(0);

    expect(page.html).toContain('<h3>Advanced Welding, Spring 2026 <span class="status active">active</span></h3>');
    const rows = rowsOf(page.html);
    const cert = (name: string) => sb.controls.certificates(world.batchId).find((c) => c.name === name)!;
    // name, email, certificate ID, variables, email status
    expect(rows).toContain(`Ada Lovelace ada@example.com ${cert('Ada Lovelace').certificateId} course Advanced Welding score 97 sent ${cert('Ada Lovelace').createdAt.slice(0, 19).replace('T', ' ')}`);
    expect(rows.find((r) => r.startsWith('Grace Hopper grace@bounce.test'))).toContain('course Advanced Welding failed');
    expect(rows.find((r) => r.startsWith('Alan Turing'))).toContain('score 88 not sent');
    expect(page.html).toContain(`<a href="${cert('Ada Lovelace').certUrl}">`);

    for (const s of sb.controls.subscriptions()) {
      expect(rows.find((r) => r.startsWith(s.id))).toBe(`${s.id} ${s.url} ${s.events.join(', ')} ${s.createdAt.slice(0, 19).replace('T', ' ')}`);
    }

    // Grace's certificate.failed: every attempt (503 with the receiver's answer), still retrying.
    const failedDelivery = rows.find((r) => r.startsWith('certificate.failed'))!;
    expect(failedDelivery).toContain(`Grace Hopper ${cert('Grace Hopper').certificateId} ${world.failingUrl}`);
    const shown = failedDelivery.match(/503 ·/g)!.length;
    expect(shown).toBeGreaterThanOrEqual(Math.max(3, triedBefore));
    expect(shown).toBeLessThanOrEqual(triedAfter);
    expect(failedDelivery).toMatch(new RegExp(`retrying \\(${shown} of 7 attempts so far\\)$`));
    const sent = rows.find((r) => r.startsWith('certificate.sent'))!;
    expect(sent).toMatch(/Ada Lovelace .* 200 · .* ms · ok succeeded$/);
  });

  test('escapes every value: a name, a variable name and value, a title, a receiver answer', async () => {
    const { html } = await getHtml(`${sb.url}/`);
    for (const raw of Object.values(HOSTILE)) expect(html).not.toContain(raw);
    expect(html).not.toMatch(/<script|<img|<b>bold|<h1>Service/i);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('<dt>&#34;&#62;&#60;img src=x onerror=alert(2)&#62;</dt><dd>&#60;b&#62;bold&#60;/b&#62; &#38; &#34;quoted&#34;</dd>');
    expect(html).toContain('&#60;img src=x onerror=alert(3)&#62; Q&#38;A');
    expect(html).toContain('<q>&#60;h1&#62;Service Unavailable&#60;/h1&#62;</q>');
  });

  test('shows no API key and no signing secret (created or rotated)', async () => {
    const { html } = await getHtml(`${sb.url}/`);
    expect(world.secrets).toHaveLength(3);
    const kept = sb.controls.subscriptions().flatMap((s) => [s.secret, s.previousSecret ?? s.secret]);
    for (const secret of [DEMO_API_KEY, ...world.secrets, ...kept]) {
      expect(html).not.toContain(secret);
    }
    expect(html).not.toContain('wh_sec_');
    expect(html).not.toContain('sk_live_');
  });

  test('the certificate page (certUrl) shows its variables, labelled by the design and escaped', async () => {
    const ada = sb.controls.certificates(world.batchId).find((c) => c.name === 'Ada Lovelace')!;
    const viewer = await getHtml(ada.certUrl);
    expect(viewer.status).toBe(200);
    expect(viewer.html).toContain('<tr><th>Course</th><td>Advanced Welding</td></tr><tr><th>Score</th><td>97</td></tr>');

    const [mallory] = sb.controls.certificates(hostileId);
    const page = await getHtml(mallory.certUrl);
    expect(page.html).not.toMatch(/<script|<img|<b>bold/i);
    expect(page.html).toContain('<tr><th>&#34;&#62;&#60;img src=x onerror=alert(2)&#62;</th><td>&#60;b&#62;bold&#60;/b&#62; &#38; &#34;quoted&#34;</td></tr>');
  });
});

describe('paging: 200 rows a page, batches and deliveries each on their own', () => {
  let big: Sandbox;
  let api: Api;
  let receiver: Receiver;

  beforeAll(async () => {
    // Its own sandbox, for exact row counts: 450 + 1 certificates, each delivered once.
    big = await createSandbox({ rateLimit: false });
    api = new Api(big.baseUrl, big.apiKey);
    receiver = await startReceiver(() => 200);
    await api.post('/webhooks/subscriptions', { url: receiver.url, events: ['certificate.issued'] });
    const small = (await api.post('/batches', { title: 'Small and older', designId: 'design_modern' })).body.id;
    await api.post(`/batches/${small}/recipients`, { name: 'First Learner', email: 'first@example.com' });
    await largeBatch(api, 'Large and newer', 450);
    await big.controls.waitForDeliveries((log) => log.length === 451, 20_000);
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await big?.close();
  });

  const certificateLinks = (html: string) => html.match(/<a href="http:\/\/127\.0\.0\.1:\d+\/v\//g)?.length ?? 0;

  test('page 1: the newest 200 certificates of the large batch, and a link to the next page', async () => {
    const { html } = await getHtml(`${big.url}/`);
    expect(certificateLinks(html)).toBe(200);
    expect(html).toContain('certificates 1–200 of 450');
    expect(html).toContain('Learner 450</td>'); // newest first
    expect(html).not.toContain('Learner 250</td>');
    expect(html).not.toContain('Small and older');
    expect(html).toContain('<nav class="pager">page 1 of 3 · <a rel="next" href="/?page=2#batches">Older →</a></nav>');
    expect(html).toContain('2 batches</a> · 451 certificates');
  });

  test('the last page: the rest of the large batch, then the older batch', async () => {
    const { html } = await getHtml(`${big.url}/?page=3`);
    expect(certificateLinks(html)).toBe(51);
    expect(html).toContain('certificates 401–450 of 450');
    expect(html).toContain('Learner 1</td>');
    expect(html).toContain('Small and older');
    expect(html).toContain('<a rel="prev" href="/?page=2#batches">← Newer</a> · page 3 of 3</nav>');
    // Past the end: the last page.
    expect(certificateLinks((await getHtml(`${big.url}/?page=99`)).html)).toBe(51);
  });

  test('deliveries page separately, and each pager keeps the other page', async () => {
    const first = await getHtml(`${big.url}/?page=2`);
    expect(first.html).toContain('page 1 of 3 · <a rel="next" href="/?page=2&#38;deliveriesPage=2#deliveries">Older →</a>');
    const third = await getHtml(`${big.url}/?page=2&deliveriesPage=3`);
    expect(certificateLinks(third.html)).toBe(200);
    expect(third.html.match(/<ol class="attempts">/g)).toHaveLength(51);
    expect(third.html).toContain('<a rel="prev" href="/?page=2&#38;deliveriesPage=2#deliveries">← Newer</a> · page 3 of 3');
    expect(third.html).toContain('<a rel="next" href="/?page=3&#38;deliveriesPage=3#batches">Older →</a>');
  });

  test('a page that is not a whole number is a 400 naming the parameter', async () => {
    for (const [query, name] of [['page=0', 'page'], ['page=two', 'page'], ['deliveriesPage=-1', 'deliveriesPage']]) {
      const res = await getHtml(`${big.url}/?${query}`);
      expect(res.status).toBe(400);
      expect(res.html).toContain(`${name} must be a whole number from 1; got &#34;${query.split('=')[1]}&#34;.`);
    }
  });
});

describe('workspaces: the demo one by default, any other through the switch', () => {
  test('?ws= shows that workspace only; an unknown one is a 404 that still offers the switch', async () => {
    const other = sb.controls.createWorkspace({ username: 'Other <Co>' });
    const otherApi = new Api(sb.baseUrl, other.apiKey);
    await otherApi.post('/batches', { title: 'Only in the other workspace', designId: 'design_modern' });

    const demo = await getHtml(`${sb.url}/`);
    expect(demo.html).toContain('<a aria-current="page" href="/?ws=ws_demo">Demo Workspace</a>');
    expect(demo.html).toContain(`<a href="/?ws=${other.workspaceId}">Other &#60;Co&#62;</a>`);
    expect(demo.html).not.toContain('Only in the other workspace');

    const theirs = await getHtml(`${sb.url}/?ws=${other.workspaceId}`);
    expect(theirs.html).toContain('Only in the other workspace');
    expect(theirs.html).not.toContain('Advanced Welding');
    expect(theirs.html).not.toContain('whs_'); // the demo workspace's subscriptions and deliveries stay there
    expect(theirs.html).not.toContain(other.apiKey);

    const unknown = await getHtml(`${sb.url}/?ws=${encodeURIComponent('<nope>')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('No workspace <code>&#60;nope&#62;</code>.');
    expect(unknown.html).toContain('href="/?ws=ws_demo"');
  });

  test('started without the seed: says how to create a workspace', async () => {
    const empty = await createSandbox({ seed: false });
    try {
      const page = await getHtml(`${empty.url}/`);
      expect(page.status).toBe(200);
      expect(page.html).toContain('<code>POST /__sandbox/workspaces</code> creates one');
    } finally {
      await empty.close();
    }
  });
});

describe('html: the one place that escapes', () => {
  test('escapes strings and numbers, joins arrays, leaves out null, undefined and false, and does not escape its own fragments twice', () => {
    const inner = html`<b>${'a&b'}</b>`;
    expect(html`<p title="${'"x"'}">${inner}${['<', 1, null, undefined, false]}</p>`.text).toBe('<p title="&#34;x&#34;"><b>a&#38;b</b>&#60;1</p>');
    expect(escapeHtml(`<>&"'`)).toBe('&#60;&#62;&#38;&#34;&#39;');
  });
});

describe('deliveries that are about no certificate, and receiver URLs with a password', () => {
  test('a test delivery and a deleted certificate say so; a password in a URL shows as ***', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const ws = sb.controls.createWorkspace({ username: 'Receivers' });
      const api = new Api(sb.baseUrl, ws.apiKey);
      const url = receiver.url.replace('http://', 'http://hook-user:s3cret-pass@');
      const sub = (await api.post('/webhooks/subscriptions', { url, events: ['certificate.issued'] })).body;
      expect(sub.url).toBe(url);
      await api.post(`/webhooks/subscriptions/${sub.id}/test`);
      const batch = (await api.post('/batches', { title: 'Short-lived', designId: 'design_modern' })).body.id;
      const cert = (await api.post(`/batches/${batch}/recipients`, { name: 'Gone Soon', email: 'gone@example.com' })).body;
      await receiver.waitFor(2);
      await sb.controls.waitForDeliveries((log) => log.filter((a) => a.subscriptionId === sub.id).length === 2);
      expect((await api.delete(`/batches/${batch}/recipients/${cert.id}`)).status).toBe(204);

      const { html } = await getHtml(`${sb.url}/?ws=${ws.workspaceId}`);
      expect(html).not.toContain('s3cret-pass');
      expect(html).toContain(receiver.url.replace('http://', 'http://hook-user:***@'));
      const rows = rowsOf(html).filter((r) => r.startsWith('certificate.issued'));
      expect(rows).toEqual([expect.stringMatching(/ certificate deleted http:\/\/hook-user:\*\*\*@/), expect.stringMatching(/ test delivery http:\/\/hook-user:\*\*\*@/)]);
    } finally {
      await receiver.close();
    }
  });
});
