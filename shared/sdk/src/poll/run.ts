import type { Api } from '../client/api';
import type { Occurrence } from '../occurrence';
import { END_OF_TIME, keepUntil, newestFirst } from './rules';
import type { PollSettings } from './settings';
import type { PollState } from './state';
import { ListWalk } from './walk';

/** The service's clock (its `Date` header) is to the second: what is stamped in the second of an answer may have existed before it. */
const SECOND = 1000;

/** One poll of one batch (index.ts says what and why): the walks within the budget, what they emitted, the next state. */
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
    this.list = new ListWalk(api, { ...settings, batchId }, state ?? {}, take, settings.budget);
  }

  get requests(): number {
    return this.list.requests;
  }

  async poll(): Promise<void> {
    const list = this.list;
    // The first poll is one walk, the first (it notes what exists). Later: the walk the last
    // poll left unfinished, if any, then at most one new walk.
    let resumed = list.walk !== undefined;
    if (this.first) list.walk = { noteBefore: END_OF_TIME };
    for (;;) {
      if (!(await list.walkOn())) {
        list.notes.push(`Read ${list.requests} pages of the list (the budget of one poll) before the walk was done; the next poll goes on from there.`);
        // The first walk goes on: from the second after its first answer (state.ts Walk.noteBefore).
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
