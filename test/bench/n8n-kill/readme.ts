// The poll trigger's kill -9 paragraph in n8n/README.md is generated from
// test/bench/n8n-kill/results.json, between marker comments, so no figure is typed by hand
// (readme.test.ts beside it fails when they differ). run.ts rewrites it after each run;
// `npm exec -- tsx test/bench/n8n-kill/readme.ts` on its own.
import fs from 'node:fs';
import path from 'node:path';
import type { KillResults, ModeResult } from './run';

export const RESULTS = path.join(__dirname, 'results.json');
export const README = path.resolve(__dirname, '../../../n8n/README.md');
const BEGIN = '<!-- n8n-kill:begin: generated from test/bench/n8n-kill/results.json; do not edit -->';
const END = '<!-- n8n-kill:end -->';

const SWITCHES = '`N8N_POLLER_DURABLE_CURSORS_ENABLED`, `N8N_SCHEDULER_ENABLED`, `N8N_SCHEDULER_POLL_TRIGGERS_ENABLED` and `N8N_USE_WORKFLOW_PUBLICATION_SERVICE`';

/** "3 missed (2 of them in an execution n8n marked crashed), 0 repeated" for one setting. */
function figures(m: ModeResult): string {
  const crashed = m.missedButStored > 0 ? ` (${m.missedButStored} of them in a stored execution n8n marked crashed, which its Retry runs)` : '';
  return `${m.missed} of ${m.certificates} certificates missed${crashed}, ${m.repeated} repeated, over ${m.kills} kills`;
}

/** Starts of n8n that failed after a kill (it exited before it was ready; the next start was tried). */
const failedStarts = (m: ModeResult): number => m.log.reduce((n, k) => n + (k.failedStarts?.length ?? 0), 0);

/** What n8n itself did when started again: always ready, or some starts failed, or it never came back. */
function starts(m: ModeResult, setting: string): string {
  if (m.gaveUp) return ` ${setting}, n8n did not start again after kill ${m.gaveUp.round}; the run stopped there.`;
  const n = failedStarts(m);
  if (n === 0) return '';
  return ` ${setting}, n8n's own start-up recovery failed ${n} time(s) after a kill (it exited; the next start worked), so run it under a restart policy.`;
}

/** True when the switches gave what the README recommends them for: every certificate in exactly one stored execution, none run twice. */
export const switchesHold = (on: ModeResult): boolean => !on.gaveUp && on.storedMissed === 0 && on.storedRepeated === 0 && on.repeated === 0;

export function killBlock(r: KillResults): string {
  const { off, on } = r.modes;
  if (!off || !on) throw new Error('results.json needs both modes (off and on): run test/bench/n8n-kill/run.ts with --modes off,on');
  const setup =
    `**When n8n is killed.** kill -9 of a real n8n ${r.n8n} (one process, ${r.database}) at a random moment 0-${r.maxDelayMs} ms after a poll read ` +
    `${r.perRound} new certificates (seed ${r.seed}; a poll every ${r.everySeconds} s; \`test/bench/n8n-kill/\`), then a restart: ` +
    `by default, ${figures(off)}; with ${SWITCHES} all \`true\`, ${figures(on)}.`;
  const advice = switchesHold(on)
    ? ` Each certificate was then in exactly one stored execution, so we recommend the four switches (n8n calls its durable poll triggers not yet fully stable; watch the execution list). ` +
      `The position is the node's static data either way: n8n copies it into its own table the first time and commits it with the execution, so the node needs no change. ` +
      `Publishing with them on commits no position from the activation poll: ${on.activationProbe.ran} of ${on.activationProbe.issued} certificate issued between publishing and the first scheduled poll started the workflow (${off.activationProbe.ran} of ${off.activationProbe.issued} without them).`
    : ` The switches did not hold here (stored: ${on.storedMissed} missed, ${on.storedRepeated} repeated), so we do not recommend them yet.`;
  return `${BEGIN}\n${setup}${starts(off, 'By default')}${starts(on, 'With the switches')}${advice}\n${END}`;
}

/** The text with its block replaced; throws when the markers are missing. */
export function withBlock(text: string, block: string): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${README} has no ${BEGIN} … ${END} block`);
  return text.slice(0, start) + block + text.slice(end + END.length);
}

export const readResults = (): KillResults => JSON.parse(fs.readFileSync(RESULTS, 'utf8')) as KillResults;

export function writeReadme(): void {
  fs.writeFileSync(README, withBlock(fs.readFileSync(README, 'utf8'), killBlock(readResults())));
}

if (require.main === module) writeReadme();
