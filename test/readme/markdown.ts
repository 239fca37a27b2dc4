// The fenced blocks of the repository's READMEs and docs/ (with docs/design/), read from the Markdown itself.
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
const SKIP = new Set(['node_modules', '.git', 'dist', 'build', '.tmp', 'coverage', 'artifacts']);
export const SHELL = new Set(['sh', 'bash', 'shell']);

export interface Fence {
  /** The file, relative to the repository root. */
  file: string;
  /** `<file> › <heading>`, with ` #n` when the heading has several shell blocks. */
  key: string;
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
}

/** Every README.md in the repository, and every Markdown file under docs/ (docs/design/ too). */
export function markdownFiles(dir = ROOT): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownFiles(full));
    else if (entry.name === 'README.md' || (path.relative(ROOT, dir).split(path.sep)[0] === 'docs' && entry.name.endsWith('.md'))) out.push(path.relative(ROOT, full));
  }
  return out.sort();
}

/** The fenced blocks of one file, in order, each under the heading it follows. */
export function fences(file: string): Fence[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const found: Array<Omit<Fence, 'key'> & { heading: string }> = [];
  let heading = '(top)';
  let open: { lang: string; line: number; body: string[] } | undefined;
  lines.forEach((text, i) => {
    if (open) {
      if (/^\s*```\s*$/.test(text)) {
        found.push({ file, heading, lang: open.lang, line: open.line, text: open.body.join('\n') });
        open = undefined;
      } else open.body.push(text);
      return;
    }
    const fence = /^\s*```(\S*)/.exec(text);
    if (fence) open = { lang: fence[1], line: i + 1, body: [] };
    else if (/^#{1,6} /.test(text)) heading = text.replace(/^#+ /, '').trim();
  });
  const shellPerHeading = new Map<string, number>();
  for (const f of found) if (SHELL.has(f.lang)) shellPerHeading.set(f.heading, (shellPerHeading.get(f.heading) ?? 0) + 1);
  const seen = new Map<string, number>();
  return found.map(({ heading: h, ...f }) => {
    const n = (seen.get(h) ?? 0) + (SHELL.has(f.lang) ? 1 : 0);
    seen.set(h, n);
    return { ...f, key: `${file} › ${h}${SHELL.has(f.lang) && (shellPerHeading.get(h) ?? 0) > 1 ? ` #${n}` : ''}` };
  });
}

/** Every shell block of every README and docs/ file. */
export function shellBlocks(): Fence[] {
  return markdownFiles().flatMap(fences).filter((f) => SHELL.has(f.lang));
}
