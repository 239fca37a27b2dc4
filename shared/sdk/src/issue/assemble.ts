import type { IssueOutcome } from './outcome';
import type { CallPlan } from './plan';

/**
 * Step 5: one outcome per input item, in input order. A repeat of an email earlier in the call
 * takes its first item's outcome: the same certificate (`skipped`, `earlierInCall`), or the
 * same failure, since it was never sent on its own.
 */
export function assembleOutcomes(total: number, plan: CallPlan, sent: ReadonlyMap<number, IssueOutcome>): IssueOutcome[] {
  const outcomes: IssueOutcome[] = new Array(total);
  for (let i = 0; i < total; i++) {
    const outcome = plan.decided.get(i) ?? sent.get(i);
    if (outcome) outcomes[i] = outcome;
  }
  for (const [index, first] of plan.repeats) {
    const o = outcomes[first];
    outcomes[index] = o.ok ? { kind: 'skipped', ok: true, recipient: o.recipient, reason: 'earlierInCall', sameAs: first } : o;
  }
  const missing = outcomes.findIndex((o) => o === undefined);
  // Every item is decided, sent or a repeat: a hole here is a bug in the plan, never "nothing happened".
  if (missing >= 0 || outcomes.length !== total) throw new Error(`issue plan: item ${missing} has no outcome`);
  return outcomes;
}
