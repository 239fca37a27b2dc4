// Unpacks the Chromium that ships inside @sparticuz/chromium (an ES module, hence this
// separate script: jest's CommonJS runtime cannot import it) and prints where it went.
import { join } from 'node:path';
import chromium, { inflate } from '@sparticuz/chromium';

const executablePath = await chromium.executablePath(); // also unpacks fonts and SwiftShader
// The NSS libraries Chromium loads at run time; the package unpacks them only on Amazon
// Linux, so a machine without Debian's libnss3 would fail to start the browser.
const binDir = join(import.meta.dirname, '..', '..', 'node_modules', '@sparticuz', 'chromium', 'bin');
const libDir = join(await inflate(join(binDir, 'al2023.tar.br')), 'lib');
const fontDir = await inflate(join(binDir, 'fonts.tar.br'));
process.stdout.write(JSON.stringify({ executablePath, args: chromium.args, libDir, fontDir }));
