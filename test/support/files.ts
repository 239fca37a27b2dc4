import * as fs from 'node:fs';
import * as path from 'node:path';

/** The newest modification time of a file, or of anything under a folder: tests rebuild a package only when its sources are newer. */
export function newestMtime(p: string): number {
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

/** `text` with the block from `begin` to `end` (the markers included) replaced by `block`; throws, naming `file`, when the markers are missing. */
export function replaceMarkedBlock(text: string, begin: string, end: string, block: string, file: string): string {
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (start < 0 || stop < start) throw new Error(`${file} has no ${begin} … ${end} block`);
  return text.slice(0, start) + block + text.slice(stop + end.length);
}
