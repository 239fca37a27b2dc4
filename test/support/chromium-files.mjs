// Unpacks the Chromium that ships inside @sparticuz/chromium (an ES module, hence this
// separate script: jest's CommonJS runtime cannot import it) and prints where it went.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium, { inflate } from '@sparticuz/chromium';

// Two browser suites start at once under `npm test`. The package skips unpacking when
// /tmp/chromium exists, even half-written (measured: a second run 1.2 s after the first
// returned at 99 of 209 MB), so one process unpacks while the others wait for it.
const lock = join(tmpdir(), 'certsvc-chromium-unpack.lock');
const deadline = Date.now() + 120_000;
for (;;) {
  try {
    mkdirSync(lock);
    break;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 120_000) rmSync(lock, { recursive: true, force: true }); // left by a killed run
    if (Date.now() > deadline) throw new Error(`waited 2 min for ${lock}; remove it if no test is running`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
try {
  const executablePath = await chromium.executablePath(); // also unpacks fonts and SwiftShader
  // The NSS libraries Chromium loads at run time; the package unpacks them only on Amazon
  // Linux, so a machine without Debian's libnss3 would fail to start the browser.
  const binDir = join(import.meta.dirname, '..', '..', 'node_modules', '@sparticuz', 'chromium', 'bin');
  const libDir = join(await inflate(join(binDir, 'al2023.tar.br')), 'lib');
  const fontDir = await inflate(join(binDir, 'fonts.tar.br'));
  process.stdout.write(JSON.stringify({ executablePath, args: chromium.args, libDir, fontDir }));
} finally {
  rmSync(lock, { recursive: true, force: true });
}
