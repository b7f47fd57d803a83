import { localDate } from '../../../shared/time/index.js';

const pad = (n: number) => String(n).padStart(2, '0');

/** Times as the operators read them, in the alerts' zone (checked known at start). */
export function alertTime(timeZone: string) {
  const wall = (ts: number) => localDate(ts, timeZone)!;
  const day = (ts: number) => {
    const d = wall(ts);
    return `${d.year}-${pad(d.month)}-${pad(d.day)}`;
  };
  return {
    /** YYYY-MM-DD. */
    day,
    hour: (ts: number) => wall(ts).hour,
    /** `2026-03-02 08:15 Europe/Paris`. */
    format: (ts: number) => {
      const d = wall(ts);
      return `${day(ts)} ${pad(d.hour)}:${pad(d.minute)} ${timeZone}`;
    },
  };
}

export type AlertTime = ReturnType<typeof alertTime>;
