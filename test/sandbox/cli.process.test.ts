// `certsvc-sandbox`, the sandbox on a port: a busy port names --port; started the way the root
// README's readers start it (`npm exec -w shared/sandbox -- certsvc-sandbox … &`), killing that
// pid stops the server; --help offers only flags and list shapes the parser takes.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { KNOWN_LIST_SHAPES, UNKNOWN_LIST_SHAPES } from '@certificate-service/sandbox';
import { answers, freePort, withBusyPort } from '../support/net';
import { sigtermStops } from '../support/processes';
import { ensureBuilt, PACKAGES } from '../support/built';
import { readFlags } from '../../shared/sandbox/src/cli';
import { until } from '../support/until';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(PACKAGES.sandbox, 'dist/cli.js');

beforeAll(() => ensureBuilt(), 120_000);

test('a busy port: exit 1, and the message names the address and --port', () =>
  withBusyPort((port) => {
    const run = spawnSync(process.execPath, [BIN, '--port', String(port)], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`certsvc-sandbox: 127.0.0.1:${port} is already in use (another sandbox?): choose another port with --port N, or --port 0 for a free one\n`);
  }));

test('started as `npm exec -w shared/sandbox -- certsvc-sandbox &`, killing that pid stops the server', async () => {
  const port = await freePort();
  const npm = spawn('npm', ['exec', '-w', 'shared/sandbox', '--', 'certsvc-sandbox', '--port', String(port)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  npm.stderr!.on('data', (chunk) => (stderr += chunk));
  // npm's own start takes seconds, more on a loaded CI machine; an early exit fails at once, with what it said.
  await until(`the sandbox on ${port}`, async () => {
    if (npm.exitCode !== null) throw new Error(`npm exec ended (${npm.exitCode}) before the sandbox answered: ${stderr}`);
    return answers(port);
  }, 45_000);
  const tree = await sigtermStops(npm.pid!, port);
  expect(tree.length).toBeGreaterThanOrEqual(2); // npm, `sh -c`, the sandbox's node
});

test('--help and the flag parser agree: every flag and list shape --help offers is one readFlags takes', () => {
  const LIST_SHAPES = [...KNOWN_LIST_SHAPES, ...UNKNOWN_LIST_SHAPES];
  const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' }).stdout;
  const flags = [...new Set(help.match(/--[a-z][a-z-]*/g))];
  expect(flags.length).toBeGreaterThan(5);
  // Unknown to the parser is ERR_PARSE_ARGS_UNKNOWN_OPTION; a known flag given without its value throws something else.
  const unknown = flags.filter((flag) => {
    try {
      readFlags([flag]);
      return false;
    } catch (error) {
      return (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    }
  });
  expect(unknown).toEqual([]);
  expect(() => readFlags(['--no-such-flag'])).toThrow(expect.objectContaining({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }));
  for (const shape of LIST_SHAPES) {
    expect(help).toContain(shape);
    expect(readFlags(['--list-shape', shape])).toMatchObject({ sandbox: { listShape: shape } });
  }
});
