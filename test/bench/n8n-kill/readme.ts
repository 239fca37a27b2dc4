// The poll trigger's kill -9 table in n8n/README.md is generated from
// test/bench/n8n-kill/results.json, between marker comments, so no figure is typed by hand
// (readme.docs.test.ts beside it fails when they differ). run.ts rewrites it after each run;
// `npm exec -- tsx test/bench/n8n-kill/readme.ts` on its own.
import fs from 'node:fs';
import path from 'node:path';
import type { KillResults, ModeResult } from './run';

export const RESULTS = path.join(__dirname, 'results.json');
export const README = path.resolve(__dirname, '../../../n8n/README.md');
const BEGIN = '<!-- n8n-kill:begin: generated from test/bench/n8n-kill/results.json; do not edit -->';
const END = '<!-- n8n-kill:end -->';

/** The durable-cursor switches, as the recommendation names them. */
const SWITCHES = '`N8N_POLLER_DURABLE_CURSORS_ENABLED`, `N8N_SCHEDULER_ENABLED`, `N8N_SCHEDULER_POLL_TRIGGERS_ENABLED` and `N8N_USE_WORKFLOW_PUBLICATION_SERVICE`';

/** The short grace: polls that fell due while n8n was down are skipped, not run side by side when it is back. */
const GRACE = '`N8N_SCHEDULER_MISFIRE_GRACE=2` and `N8N_SCHEDULER_MATERIALIZATION_WINDOW=2`';

/**
 * n8n 2.36.x's boot check (durable-poller-gate.service.js, PR #36340) turns durable pollers off for
 * the instance when an active workflow cannot be scanned; PR #36639 retired it in 2.37.0
 * (docs/design/n8n.md, Poll Trigger).
 */
const UNLOADABLE =
  'On n8n 2.36.x one active workflow with a node n8n cannot load (an uninstalled community package) ' +
  'turns durable cursors off for the whole instance; 2.37 and later do not.';

/** What each setting is, in the table. */
const SETTING: Record<string, string> = {
  off: "n8n's defaults",
  on: 'the four switches `true`',
  'on-grace': `the switches, ${GRACE}`,
};

/** Starts of n8n that failed after a kill (it exited before it was ready; the next start was tried). */
const failedStarts = (m: ModeResult): number => m.log.reduce((n, k) => n + (k.failedStarts?.length ?? 0), 0);

/** True when a setting gave what the README would recommend it for: every certificate in exactly one stored execution, none run twice, n8n always back. */
export const holds = (m: ModeResult): boolean => !m.gaveUp && m.storedMissed === 0 && m.storedRepeated === 0 && m.repeated === 0;

/** One row of the table: the figures of one setting. */
function row(m: ModeResult): string {
  const twice = m.repeated > 0 ? `${m.repeated} (${m.extraRuns} extra runs)` : '0';
  const starts = m.gaveUp ? `did not start after kill ${m.gaveUp.round}` : String(failedStarts(m));
  return `| ${SETTING[m.mode]} | ${m.missed} of ${m.certificates} | ${m.missedButStored} | ${twice} | ${starts} | ${m.activationProbe.ran} of ${m.activationProbe.issued} |`;
}

/** Prose wrapped at 100 columns, as the README's own paragraphs are. */
function wrap(text: string): string {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= 100) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines.join('\n');
}

export function killBlock(r: KillResults): string {
  const modes = (['off', 'on', 'on-grace'] as const).filter((k) => r.modes[k]).map((k) => r.modes[k]!);
  const off = r.modes.off;
  if (!off || modes.length < 2) throw new Error('results.json needs off and at least one setting with the switches: run test/bench/n8n-kill/run.ts');
  const runs = [...new Set(modes.map((m) => `${m.kills} kills, seed ${m.run.seed}`))].join('; ');
  const setup =
    `kill -9 of n8n ${r.n8n} (one process, ${r.database}) 0-${off.run.maxDelayMs} ms after a poll read ${off.run.perRound} new certificates, ` +
    `then a restart (a poll every ${off.run.everySeconds} s; ${runs}; \`test/bench/n8n-kill/\`):`;
  const table = [
    '| Setting | Never ran | … in a crashed execution (Retry runs it) | Ran twice or more | n8n failed to start after a kill | Issued between publishing and the first poll: ran |',
    '|---|---|---|---|---|---|',
    ...modes.map(row),
  ].join('\n');
  const good = modes.filter((m) => m.mode !== 'off' && holds(m)).at(-1);
  const advice = good
    ? `We recommend ${SWITCHES} set to \`true\`${good.mode === 'on' ? '' : `, with ${GRACE}`}, Retry for crashed executions, and a restart policy ` +
      '(n8n calls durable poll triggers not yet fully stable: watch the execution list). ' +
      UNLOADABLE
    : 'No setting with the switches kept each certificate to one stored execution here, so we do not recommend them yet.';
  return `${BEGIN}\n${wrap(setup)}\n\n${table}\n\n${wrap(advice)}\n${END}`;
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
