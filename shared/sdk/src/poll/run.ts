import type { Api } from '../client/api';
import type { Occurrence } from '../occurrence';
import { END_OF_TIME, keepUntil, newestFirst } from './rules';
import type { PollSettings } from './settings';
import type { PollState } from './state';
import { ListWalk } from './walk';

/** The service's clock (its `Date` header) is to the second: what is stamped in the second of an answer may have existed before it. */
const SECOND = 1000;

/**
 * One poll of one batch (index.ts says what and why). The first poll (no state: the trigger's
 * activation) begins the first walk, which notes all it reads (state.ts Walk.noteBefore). A later
 * poll goes on with the walk the last one left unfinished, if any, then begins at most one new
 * walk; all within the budget of list requests.
 */
export class PollRun {
  private readonly list: ListWalk;
  private readonly first: boolean;
  private readonly emitted = new Map<string, Occurrence>();
  /** Remember off: what the first poll noted, returned so the host knows it (Zapier seeds its dedupe). */
  private readonly noted = new Map<string, Occurrence>();

  /** `state`: the previous poll's; undefined on the first poll. */
  constructor(api: Api, batchId: string, private readonly settings: PollSettings, state: PollState | undefined) {
    this.first = state === undefined;
    const take = (o: Occurrence, verdict: 'new' | 'note') => this.take(o, verdict);
    this.list = new ListWalk(api, { ...settings, batchId }, state ?? { walk: { noteBefore: END_OF_TIME } }, take, settings.budget);
  }

  get requests(): number {
    return this.list.requests;
  }

  async poll(): Promise<void> {
    const list = this.list;
    let resumed = list.walk !== undefined;
    for (;;) {
      if ((await list.walkOn()) === 'budget') {
        list.notes.push(`Read ${list.requests} pages of the list (the budget of one poll) before the walk was done; the next poll goes on from there.`);
        // The first walk goes on at the next poll, which emits what was stamped after the second of its first answer.
        const walk = list.walk!;
        if (this.first && !walk.guessed) walk.noteBefore = walk.since! + SECOND;
        return;
      }
      list.finishWalk();
      // A new walk right away only where one is short (a time-ordered list): the whole of an unordered one waits for the next poll.
      if (this.first || !resumed || list.requests >= this.settings.budget || list.order === undefined || list.order === 'unordered') return;
      resumed = false;
    }
  }

  /** An occurrence judged new or noted: kept as known (remember on), emitted, or noted for the first poll's answer. */
  private take(o: Occurrence, verdict: 'new' | 'note'): void {
    if (this.settings.remember) this.list.known.set(o.key, keepUntil(o, this.settings.event, this.settings.windowMs));
    if (verdict === 'new') this.emitted.set(o.key, o);
    else if (!this.settings.remember) this.noted.set(o.key, o);
  }

  /** What a poll leaves: the occurrences to return, newest first, and the state for the next. */
  result(): { occurrences: Occurrence[]; state: PollState; notes: string[] } {
    let out = [...this.emitted.values()];
    if (this.first) {
      const newest = newestFirst([...this.list.read.values()]).slice(0, this.settings.firstPoll);
      out = [...new Map([...newest, ...this.noted.values()].map((o) => [o.key, o])).values()];
    }
    return { occurrences: newestFirst(out), state: this.list.state(), notes: this.list.notes };
  }
}
