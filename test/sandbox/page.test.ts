// The overview page at `/` (and the certificate viewer) as HTML, in-process: what it shows
// (batches first, each batch's certificates on its own page), that it escapes every value,
// shows no key or secret, pages, writes dates readably, and that a JSON client of `/` still gets
// the 404 it always got. The same page in Chromium: page-chromium.e2e.test.ts.
import { createSandbox, DEMO_API_KEY, type Sandbox } from '@certificate-service/sandbox';
import { Api, type Receiver, startReceiver } from '@certificate-service/sandbox/testing';
import { escapeHtml, html } from '../../shared/sandbox/src/html';
import { when } from '../../shared/sandbox/src/routes/dashboard';
import { getHtml, HOSTILE, hostileBatch, largeBatch, readable, weldingWorld, type World } from './page-world';

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
      'x-content-type-options': 'nosniff', // the one header added since: every answer has it
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
  const cert = (name: string) => sb.controls.certificates(world.batchId).find((c) => c.name === name)!;

  test('needs no key, is not counted, and lists batches (with their counts), subscriptions and deliveries', async () => {
    sb.controls.resetCounters();
    const failingTries = () => sb.controls.deliveries().filter((a) => a.url === world.failingUrl).length;
    const triedBefore = failingTries(); // a retry may land while the page is read
    const page = await getHtml(`${sb.url}/`);
    const triedAfter = failingTries();
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(sb.controls.counters().requests.total).toBe(0);

    const rows = rowsOf(page.html);
    // title, id, design, status, certificates, emails by state, created (readable)
    const batch = sb.controls.certificates(world.batchId)[0].batchId;
    const created = (await world.api.get(`/batches/${batch}`)).body.createdAt as string;
    expect(rows).toContain(`Advanced Welding, Spring 2026 ${batch} Classic active 3 1 not sent · 1 sent · 1 failed ${readable(created)}`);
    expect(page.html).toContain(`<a href="/?batch=${batch}">Advanced Welding, Spring 2026</a>`);
    expect(page.html).not.toContain('Ada Lovelace</td>'); // certificates are on the batch's own page

    for (const s of sb.controls.subscriptions()) {
      expect(rows.find((r) => r.startsWith(s.id))).toBe(`${s.id} ${s.url} ${s.events.join(', ')} ${readable(s.createdAt)}`);
    }

    // Grace's certificate.failed: every attempt (503 with the receiver's answer), still retrying.
    const failedDelivery = rows.find((r) => r.startsWith('certificate.failed'))!;
    expect(failedDelivery).toContain(`Grace Hopper ${cert('Grace Hopper').certificateId} ${world.failingUrl}`);
    const shown = failedDelivery.match(/503 ·/g)!.length;
    expect(shown).toBeGreaterThanOrEqual(Math.max(3, triedBefore));
    expect(shown).toBeLessThanOrEqual(triedAfter);
    expect(failedDelivery).toMatch(new RegExp(`retrying \\(${shown} of 7 attempts so far\\)$`));
    const sent = rows.find((r) => r.startsWith('certificate.sent'))!;
    const attempt = sb.controls.deliveries().find((a) => a.type === 'certificate.sent')!;
    expect(sent).toMatch(new RegExp(`Ada Lovelace .* 200 · ${readable(attempt.at, true)} · \\d+ ms · ok succeeded$`));
  });

  test("a batch's page: its certificates with their variables and email states", async () => {
    const page = await getHtml(`${sb.url}/?batch=${world.batchId}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h2>Advanced Welding, Spring 2026 <span class="status active">active</span></h2>');
    expect(page.html).toContain('<a href="/?ws=ws_demo">← All batches</a>');
    const rows = rowsOf(page.html);
    // name, email, certificate ID, variables, email status, issued
    expect(rows).toContain(`Ada Lovelace ada@example.com ${cert('Ada Lovelace').certificateId} course Advanced Welding score 97 sent ${readable(cert('Ada Lovelace').createdAt)}`);
    expect(rows.find((r) => r.startsWith('Grace Hopper grace@bounce.test'))).toContain('course Advanced Welding failed');
    expect(rows.find((r) => r.startsWith('Alan Turing'))).toContain('score 88 not sent');
    expect(page.html).toContain(`<a href="${cert('Ada Lovelace').certUrl}">`);
    // The ISO value stays, for the machine and as the tooltip.
    const iso = cert('Ada Lovelace').createdAt;
    expect(page.html).toContain(`<time datetime="${iso}" title="${iso}">${readable(iso)}</time>`);
  });

  test('a batch that does not exist (or is in another workspace than ?ws= says) is a 404 that links back', async () => {
    for (const query of ['batch=batch_nope', `batch=${world.batchId}&ws=ws_other`]) {
      const page = await getHtml(`${sb.url}/?${query}`);
      expect(page.status).toBe(404);
      expect(page.html).toMatch(/No batch <code>batch_\w+<\/code>/);
      expect(page.html).toContain('<a href="/">Back to the overview</a>');
    }
  });

  test('escapes every value: a name, a variable name and value, a title, a receiver answer', async () => {
    const html = (await getHtml(`${sb.url}/`)).html + (await getHtml(`${sb.url}/?batch=${hostileId}`)).html;
    for (const raw of Object.values(HOSTILE)) expect(html).not.toContain(raw);
    expect(html).not.toMatch(/<script|<img|<b>bold|<h1>Service/i);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('<dt>&#34;&#62;&#60;img src=x onerror=alert(2)&#62;</dt><dd>&#60;b&#62;bold&#60;/b&#62; &#38; &#34;quoted&#34;</dd>');
    expect(html).toContain('&#60;img src=x onerror=alert(3)&#62; Q&#38;A');
    expect(html).toContain('<q>&#60;h1&#62;Service Unavailable&#60;/h1&#62;</q>');
  });

  test('shows no API key and no signing secret (created or rotated)', async () => {
    const html = (await getHtml(`${sb.url}/`)).html + (await getHtml(`${sb.url}/?batch=${world.batchId}`)).html;
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

describe('paging: batches first, then 200 certificates a page within a batch; deliveries on their own', () => {
  let big: Sandbox;
  let api: Api;
  let receiver: Receiver;
  let large: string;

  beforeAll(async () => {
    // Its own sandbox, for exact row counts: 3,000 + 1 certificates, each delivered once (20 at a
    // time: 3,000 attempts at once can time out on a loaded machine).
    big = await createSandbox({ rateLimit: false, deliveryConcurrency: 20 });
    api = new Api(big.baseUrl, big.apiKey);
    receiver = await startReceiver(() => 200);
    await api.post('/webhooks/subscriptions', { url: receiver.url, events: ['certificate.issued'] });
    const small = (await api.post('/batches', { title: 'Small and older', designId: 'design_modern' })).body.id;
    await api.post(`/batches/${small}/recipients`, { name: 'First Learner', email: 'first@example.com' });
    large = await largeBatch(api, 'Large and newer', 3000);
    await big.controls.waitForDeliveries((log) => log.length === 3001, 60_000);
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await big?.close();
  });

  const certificateLinks = (html: string) => html.match(/<a href="http:\/\/127\.0\.0\.1:\d+\/v\//g)?.length ?? 0;
  const batchRows = (html: string) => rowsOf(html.slice(html.indexOf('<table class="batches">'), html.indexOf('id="subscriptions"')));

  test('after a 3,000-certificate batch, the overview still lists every batch on its first page, newest first, with its counts', async () => {
    const { html } = await getHtml(`${big.url}/`);
    expect(batchRows(html).map((r) => r.replace(/ batch_\w+ /, ' … ').replace(/ \d+ \w+ \d{4}, \d\d:\d\d UTC$/, ''))).toEqual([
      'Batch Design Status Certificates Emails Created',
      'Large and newer … Minimal active 3,000 3,000 not sent',
      'Small and older … Modern active 1 1 not sent',
    ]);
    expect(html).toContain('2 batches</a> · 3,001 certificates');
    expect(certificateLinks(html)).toBe(0); // certificates are on each batch's page
    expect(html).not.toMatch(/<nav class="pager">[^<]*<a [^>]*#batches/); // one page of batches
  });

  test("a batch's page: the newest 200 certificates, page 1 of 15, and links to the next and the last page", async () => {
    const { html } = await getHtml(`${big.url}/?batch=${large}`);
    expect(certificateLinks(html)).toBe(200);
    expect(html).toContain('newest first, certificates 1–200 of 3,000, page 1 of 15');
    expect(html).toContain('Learner 3000</td>'); // newest first
    expect(html).not.toContain('Learner 2800</td>');
    expect(html).not.toContain('Small and older');
    expect(html).toContain(
      `<nav class="pager">page 1 of 15 · <a rel="next" href="/?batch=${large}&#38;page=2#certificates">Older →</a> · <a href="/?batch=${large}&#38;page=15#certificates">Oldest »</a></nav>`,
    );
  });

  test('a page in the middle links both ways; the last page holds the oldest; past the end is the last page', async () => {
    const middle = await getHtml(`${big.url}/?batch=${large}&page=8`);
    expect(middle.html).toContain('certificates 1,401–1,600 of 3,000, page 8 of 15');
    expect(middle.html).toContain(`<a href="/?batch=${large}#certificates">« Newest</a> · <a rel="prev" href="/?batch=${large}&#38;page=7#certificates">← Newer</a> · page 8 of 15 · <a rel="next"`);
    expect(middle.html).toContain('Learner 1600</td>');
    expect(middle.html).toContain('Learner 1401</td>');

    const last = await getHtml(`${big.url}/?batch=${large}&page=15`);
    expect(certificateLinks(last.html)).toBe(200);
    expect(last.html).toContain('certificates 2,801–3,000 of 3,000, page 15 of 15');
    expect(last.html).toContain('Learner 1</td>');
    expect(last.html).toContain(`<a rel="prev" href="/?batch=${large}&#38;page=14#certificates">← Newer</a> · page 15 of 15</nav>`);
    expect((await getHtml(`${big.url}/?batch=${large}&page=99`)).html).toContain('page 15 of 15');
  });

  test('deliveries page on their own, and their pager keeps the batch list on its page', async () => {
    const third = await getHtml(`${big.url}/?deliveriesPage=3`);
    expect(third.html.match(/<ol class="attempts">/g)).toHaveLength(200);
    expect(third.html).toContain('newest first, every attempt, page 3 of 16');
    expect(third.html).toContain('<a rel="prev" href="/?deliveriesPage=2#deliveries">← Newer</a> · page 3 of 16');
    expect((await getHtml(`${big.url}/?page=2&deliveriesPage=3`)).html).toContain('<a rel="next" href="/?page=2&#38;deliveriesPage=4#deliveries">Older →</a>');
  });

  test('more than 200 batches: the batch list pages too', async () => {
    const many = await createSandbox({ rateLimit: false });
    try {
      const manyApi = new Api(many.baseUrl, many.apiKey);
      for (let i = 1; i <= 205; i++) await manyApi.post('/batches', { title: `Batch ${i}`, designId: 'design_modern' });
      const first = await getHtml(`${many.url}/`);
      expect(batchRows(first.html)).toHaveLength(1 + 200);
      expect(batchRows(first.html)[1]).toMatch(/^Batch 205 /);
      expect(first.html).toContain('<nav class="pager">page 1 of 2 · <a rel="next" href="/?page=2#batches">Older →</a></nav>');
      const second = await getHtml(`${many.url}/?page=2`);
      expect(batchRows(second.html).slice(1).map((r) => r.split(' batch_')[0])).toEqual(['Batch 5', 'Batch 4', 'Batch 3', 'Batch 2', 'Batch 1']);
    } finally {
      await many.close();
    }
  });

  test('a page that is not a whole number is a 400 naming the parameter', async () => {
    for (const [query, name] of [['page=0', 'page'], ['page=two', 'page'], ['deliveriesPage=-1', 'deliveriesPage'], [`batch=${large}&page=1.5`, 'page']]) {
      const res = await getHtml(`${big.url}/?${query}`);
      expect(res.status).toBe(400);
      expect(res.html).toContain(`${name} must be a whole number from 1; got &#34;${query.slice(query.lastIndexOf('=') + 1)}&#34;.`);
    }
  });
});

describe('dates: readable, in UTC, with the ISO value kept', () => {
  test.each([
    ['2026-11-28T14:03:07.123Z', false, '28 Nov 2026, 14:03 UTC'],
    ['2026-11-28T14:03:07.123Z', true, '28 Nov 2026, 14:03:07 UTC'],
    ['2026-09-01T00:00:00Z', false, '1 Sep 2026, 00:00 UTC'],
    ['2027-01-05T23:59:59.999Z', true, '5 Jan 2027, 23:59:59 UTC'],
  ])('%s (seconds: %s) reads "%s"', (iso, seconds, text) => {
    expect(when(iso, seconds).text).toBe(`<time datetime="${iso}" title="${iso}">${text}</time>`);
    expect(readable(iso, seconds)).toBe(text); // the tests' own reading agrees
  });

  test('a value that is not a date is shown as it is, escaped', () => {
    expect(when('<soon>').text).toBe('&#60;soon&#62;');
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
