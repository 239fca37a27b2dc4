// A measurement, run by hand (not in CI: it needs LibreOffice, ~30 s): what a real spreadsheet
// makes of the CSV certsvc writes (csv-write.ts) and of what it wrote before (csv-stringify with
// no options), for the attack cells of OWASP's CSV Injection page and a name with accents.
//
//   apt-get install -y libreoffice-calc-nogui
//   npx tsx test/cli/libreoffice.measure.ts
//
// Each file is converted headless to flat ODS with two CSV imports: Windows-1252 (what Excel's
// default import does with a file that has no byte-order mark) and UTF-8. For each cell it prints
// whether Calc made it a formula (else its type: string, float), and the text it shows. Results: docs/design/cli.md.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { toCsv } from '../../shared/cli/src/csv-write';

const CELLS = ['=HYPERLINK("http://x","Click")', '+1+2', '-1+2', '@SUM(1+1)', '\t=1+2', '\r=1+2', '\n=1+2', 'José Müller-Øster', '-5', '+44 20 7946 0958', '+447700900123'];
const IMPORTS = { 'Windows-1252': 1, 'UTF-8': 76 }; // LibreOffice's rtl_TextEncoding numbers

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-lo-'));
const files = {
  before: stringify(CELLS.map((c) => [c]), { header: true, columns: ['name'] }),
  certsvc: toCsv(CELLS.map((c) => [c]), { columns: ['name'], bom: true }),
};
const shown = (text: string) => JSON.stringify(text).slice(1, -1);

for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${name}.csv`), text);
for (const [label, charset] of Object.entries(IMPORTS)) {
  const out = path.join(dir, label);
  execFileSync('soffice', [`-env:UserInstallation=file://${path.join(dir, 'profile')}`, '--headless', `--infilter=CSV:44,34,${charset},1`, '--convert-to', 'fods', '--outdir', out, ...Object.keys(files).map((f) => path.join(dir, `${f}.csv`))], { stdio: 'ignore' });
  for (const name of Object.keys(files)) {
    const xml = fs.readFileSync(path.join(out, `${name}.fods`), 'utf8');
    const body = xml.slice(xml.indexOf('<table:table '));
    const cells = [...body.matchAll(/<table:table-cell([^>]*?)(?:\/>|>([\s\S]*?)<\/table:table-cell>)/g)].map(([, attributes, inner]) => ({
      formula: /table:formula="([^"]*)"/.exec(attributes)?.[1]?.replace(/&quot;/g, '"'),
      type: /office:value-type="([^"]*)"/.exec(attributes)?.[1],
      text: [...(inner ?? '').matchAll(/<text:p>([\s\S]*?)<\/text:p>/g)].map((p) => p[1].replace(/&apos;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&')).join('\n'),
    }));
    console.log(`\n${name}.csv, ${label} import:`);
    for (const c of cells.filter((c) => c.text || c.formula)) console.log(`  ${c.formula ? `FORMULA ${c.formula}` : c.type}  shows "${shown(c.text)}"`);
  }
}
fs.rmSync(dir, { recursive: true, force: true });
