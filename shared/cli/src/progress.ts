import type { RateLimitState } from '@certificate-service/sdk';

/** The stream a progress bar is drawn on: stderr when it is a terminal. */
export interface ProgressStream {
  columns?: number;
  write(text: string): unknown;
}

export interface ProgressSource {
  /** The client's last reading of the RateLimit-* headers. */
  rate(): Readonly<RateLimitState>;
  /** When the client is waiting (pacing, Retry-After): the epoch ms it waits until. */
  waitingUntil(): number | undefined;
}

/**
 * One line on a terminal, redrawn in place: how many rows have an outcome, what is in flight and
 * for how long, and where the rate limit stands. While the client waits for the window to reset it
 * says so and counts down, and during a slow call the seconds go up, so neither looks like a hang.
 * A message clears the line first, so it never runs into the bar; after `stop` the bar keeps the
 * counts it had (after a Ctrl-C, the rows that really got an outcome) and draws no more.
 */
export function progressBar(stream: ProgressStream, source: ProgressSource, now: () => number = Date.now) {
  let done = 0;
  let total = 0;
  let doing: { what: string; since: number } | undefined;
  let stopped = false;
  const line = (tail?: string) => {
    const width = 24;
    const filled = total ? Math.round((done / total) * width) : 0;
    const until = source.waitingUntil();
    const remaining = source.rate().remaining;
    const parts = [`[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`];
    if (tail) parts.push(tail);
    else if (until !== undefined && until > now()) parts.push(`rate limit: waiting ${Math.ceil((until - now()) / 1000)} s`);
    else {
      if (doing) parts.push(`${doing.what} ${Math.floor((now() - doing.since) / 1000)} s`);
      if (remaining !== undefined) parts.push(`rate limit: ${remaining} left`);
    }
    return `\r${parts.join(' · ').slice(0, (stream.columns || 80) - 1)}\x1b[K`;
  };
  const draw = () => void (stopped || stream.write(line()));
  const timer = setInterval(draw, 250);
  timer.unref();
  return {
    update(d: number, t: number) {
      done = d;
      total = t;
      draw();
    },
    /** What is in flight now (a read, a call of n rows): its seconds count up until the next one. */
    doing(what: string | undefined) {
      doing = what === undefined ? undefined : { what, since: now() };
      draw();
    },
    /** A message on its own line (the bar's line cleared first), the bar drawn again below it. */
    say(text: string) {
      if (stopped) return void stream.write(text);
      stream.write(`\r\x1b[K${text}`);
      draw();
    },
    /** The last drawing (with `tail`, e.g. "stopped"), then a new line; nothing is drawn after. */
    stop(tail?: string) {
      if (stopped) return;
      clearInterval(timer);
      stream.write(`${line(tail)}\n`);
      stopped = true;
    },
  };
}

export type ProgressBar = ReturnType<typeof progressBar>;
