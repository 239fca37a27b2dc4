// A time typed on the command line (`--since`, `--until`): a duration back from now, or an ISO
// 8601 date or date-time read strictly. Date.parse is not used to read it: it falls back to a
// guess on anything it does not know (`2026-11-27junk` became 2026-06-11) and rolls impossible
// days over (`2026-02-30` became March 2). The forms taken are few, so each is a pattern here,
// and the calendar is checked by building the date and reading it back.
import { UsageError } from '@certificate-service/sdk';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `72h`, `3d`, `90m`, `30s` (decimals too: `1.5h`). */
const DURATION = /^(\d+(?:\.\d+)?)([smhd])$/i;
/** `2026-11-27`: midnight UTC, as ISO 8601 and Date read a date alone. */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** `2026-11-27T08:00Z`, `…T08:00:00.5+01:00`: a time of day is only read with its zone. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

const FORMS = 'a duration back from now (72h, 3d, 90m) or an ISO 8601 time: a date (2026-11-27, midnight UTC) or a date and time with its zone (2026-11-27T08:00:00Z, 2026-11-27T09:00+01:00)';

/** Epoch ms of a calendar day, or NaN when the day does not exist (2026-02-30, 2026-13-01). */
function day(year: number, month: number, date: number): number {
  const at = new Date(Date.UTC(year, month - 1, date));
  at.setUTCFullYear(year); // Date.UTC reads years 0-99 as 1900-1999
  return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === date ? at.getTime() : NaN;
}

/** The time `text` names (epoch ms), NaN when it is none of the forms, or why it is not a real time. */
function read(text: string, now: number): number | string {
  const duration = DURATION.exec(text);
  if (duration) return now - Number(duration[1]) * UNITS[duration[2].toLowerCase()];
  const t = DATE.exec(text) ?? DATE_TIME.exec(text);
  if (!t) return NaN;
  const date = day(Number(t[1]), Number(t[2]), Number(t[3]));
  if (Number.isNaN(date)) return `${t[1]}-${t[2]}-${t[3]} is not a day of the calendar`;
  if (t.length === 4) return date;
  const [hour, minute, second, offsetHours, offsetMinutes] = [t[4], t[5], t[6] ?? '0', t[10] ?? '0', t[11] ?? '0'].map(Number);
  if (hour > 23 || minute > 59 || second > 59) return 'the time of day runs from 00:00:00 to 23:59:59';
  if (offsetHours > 23 || offsetMinutes > 59) return 'the zone runs from -23:59 to +23:59';
  const offsetMs = (t[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const fraction = t[7] ? Math.floor(Number(t[7]) * 1000) : 0;
  return date + ((hour * 60 + minute) * 60 + second) * 1000 + fraction - offsetMs;
}

/** A time flag's value (epoch ms); anything else is a usage error naming the flag. */
export function parseTimeFlag(flag: string, text: string, now: number): number {
  const at = read(text.trim(), now);
  if (typeof at === 'string') throw new UsageError(`${flag}: "${text}" is not a real time: ${at}.`);
  if (Number.isNaN(at)) throw new UsageError(`${flag}: give ${FORMS}; got "${text}".`);
  return at;
}

/** A duration flag's value in ms (`--max-wait 5m`); anything else is a usage error naming the flag. */
export function parseDurationFlag(flag: string, text: string): number {
  const duration = DURATION.exec(text.trim());
  if (!duration) throw new UsageError(`${flag}: give a duration (30s, 5m, 1h); got "${text}".`);
  return Number(duration[1]) * UNITS[duration[2].toLowerCase()];
}
