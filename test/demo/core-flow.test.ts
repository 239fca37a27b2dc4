// `npm start`'s first section: its heading names the transport its requests go through, and
// they do go through undici (createClient's default), not fetch.
jest.mock('undici', () => {
  const actual = jest.requireActual('undici');
  return { ...actual, request: jest.fn(actual.request) };
});
import { request } from 'undici';
import { createSandbox } from '@certificate-service/sandbox';
import { CORE_FLOW_TITLE, runCoreFlow } from '../../demo/core-flow';

test('the core flow sends every API call through undici; fetch only opens the viewer page, as a browser would; its report links to no sandbox', async () => {
  expect(CORE_FLOW_TITLE).toMatch(/undici/);
  expect(CORE_FLOW_TITLE).not.toMatch(/fetch/);
  const fetchSpy = jest.spyOn(globalThis, 'fetch');
  const sandbox = await createSandbox({ timeScale: 0.001 });
  const details: string[] = [];
  try {
    await runCoreFlow(sandbox, (_label, detail) => void details.push(detail));
    // `npm start` prints the report after its sandbox stopped: a path, not a link to it.
    expect(details.join('\n')).not.toMatch(/https?:\/\//);
    expect(details).toContainEqual(expect.stringMatching(/^CERT-[\d-]+ → \/v\/[\w-]+$/));
    const apiCalls = sandbox.controls.counters().requests.total;
    expect(jest.mocked(request).mock.calls.filter(([url]) => String(url).startsWith(sandbox.baseUrl))).toHaveLength(apiCalls);
    expect(fetchSpy.mock.calls.map(([url]) => String(url))).toEqual([expect.stringMatching(/\/v\/[\w-]+$/)]);
  } finally {
    fetchSpy.mockRestore();
    await sandbox.close();
  }
}, 60_000);
