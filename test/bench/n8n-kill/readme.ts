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

/** What each setting is, in the paragraph. */
const SETTING: Record<string, string> = {
  off: "n8n's defaults",
  on: `${SWITCHES} all \`true\``,
  'on-grace': 'the switches and `N8N_SCHEDULER_MISFIRE_GRACE=2`, `N8N_SCHEDULER_MATERIALIZATION_WINDOW=2` (polls that fell due while n8n was down are skipped, not run side by side when it is back)',
};

/** "3 of 44 certificates never ran (2 of them in …), 0 ran twice" for one setting. */
function figures(m: ModeResult): string {
  const crashed = m.missedButStored > 0 ? ` (${m.missedButStored} of them in an execution n8n stored and marked crashed, which its Retry runs)` : '';
  const twice = m.repeated > 0 ? `${m.repeated} ran more than once (${m.extraRuns} extra runs)` : '0 ran twice';
  const gaveUp = m.gaveUp ? `; n8n did not start again after kill ${m.gaveUp.round}, where the run stopped` : '';
  const failed = failedStarts(m);
  const starts = failed > 0 ? `; n8n's own start-up recovery crashed it ${failed} time(s) after a kill (the next start worked: run it under a restart policy)` : '';
  return `${m.missed} of ${m.certificates} certificates never ran${crashed}, ${twice}${gaveUp}${starts}`;
}

/** Starts of n8n that failed after a kill (it exited before it was ready; the next start was tried). */
const failedStarts = (m: ModeResult): number => m.log.reduce((n, k) => n + (k.failedStarts?.length ?? 0), 0);

/** True when a setting gave what the README would recommend it for: every certificate in exactly one stored execution, none run twice, n8n always back. */
export const holds = (m: ModeResult): boolean => !m.gaveUp && m.storedMissed === 0 && m.storedRepeated === 0 && m.repeated === 0;

export function killBlock(r: KillResults): string {
  const modes = (['off', 'on', 'on-grace'] as const).filter((k) => r.modes[k]).map((k) => r.modes[k]!);
  const off = r.modes.off;
  if (!off || modes.length < 2) throw new Error('results.json needs off and at least one setting with the switches: run test/bench/n8n-kill/run.ts');
  const runs = [...new Set(modes.map((m) => `${m.kills} kills, seed ${m.run.seed}`))].join('; ');
  const setup =
    `**When n8n is killed.** kill -9 of a real n8n ${r.n8n} (one process, ${r.database}) at a random moment 0-${off.run.maxDelayMs} ms after a poll read ` +
    `${off.run.perRound} new certificates, then a restart (a poll every ${off.run.everySeconds} s; ${runs}; \`test/bench/n8n-kill/\`): ` +
    modes.map((m) => `with ${SETTING[m.mode]}, ${figures(m)}`).join('; ') + '.';
  const good = modes.filter((m) => m.mode !== 'off' && holds(m)).at(-1);
  const advice = good
    ? ` We recommend ${good.mode === 'on' ? 'the four switches' : 'the four switches with that short grace'}, and Retry for crashed executions (n8n calls its durable poll triggers not yet fully stable: watch the execution list). ` +
      `The node needs no change: its position is the node's static data, which n8n then keeps in its own table and commits with the execution. ` +
      `With the switches, the poll at publishing saves no position: ${good.activationProbe.ran} of ${good.activationProbe.issued} certificate issued before the first scheduled poll started the workflow (${off.activationProbe.ran} of ${off.activationProbe.issued} by default).`
    : ' No setting with the switches kept each certificate to one stored execution here, so we do not recommend them yet.';
  return `${BEGIN}\n${setup}${advice}\n${END}`;
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
