// Every relative link in the READMEs and docs/ reaches a file that exists, and every `#anchor` a
// heading of that file: text moved between a README and docs/ leaves no dead link behind.
import fs from 'node:fs';
import path from 'node:path';
import { markdownFiles, ROOT } from './markdown';

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
const anchorOf = (heading: string): string =>
  heading.trim().toLowerCase().replace(/`/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

/** The anchors of a Markdown file's headings, fenced blocks left out. */
function anchors(file: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) out.add(anchorOf(heading[1]));
  }
  return out;
}

/** Each `[text](target)` outside fenced blocks whose target is not a URL. */
function relativeLinks(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((target) => !/^[a-z]+:/i.test(target));
}

function problem(file: string, target: string): string | undefined {
  const [relative, anchor] = target.split('#');
  let resolved = relative ? path.resolve(ROOT, path.dirname(file), relative) : path.join(ROOT, file);
  if (!fs.existsSync(resolved)) return 'no such file';
  if (fs.statSync(resolved).isDirectory()) {
    resolved = path.join(resolved, 'README.md');
    if (anchor === 'readme') return fs.existsSync(resolved) ? undefined : 'no README in that folder';
  }
  if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) return `no heading for #${anchor}`;
  return undefined;
}

test.each(markdownFiles())('%s: every relative link and anchor resolves', (file) => {
  const dead = relativeLinks(file).flatMap((target) => {
    const why = problem(file, target);
    return why ? [`${target}: ${why}`] : [];
  });
  expect(dead).toEqual([]);
});

test('the check finds a dead file, a dead anchor, and reads anchors as GitHub makes them', () => {
  expect(anchorOf('The Webhook → Verify path')).toBe('the-webhook--verify-path');
  expect(anchorOf('`certsvc events recover`')).toBe('certsvc-events-recover');
  expect(problem('README.md', 'docs/no-such-file.md')).toBe('no such file');
  expect(problem('README.md', '#no-such-heading')).toBe('no heading for #no-such-heading');
  expect(problem('README.md', '#try-it-from-this-clone')).toBeUndefined();
});
