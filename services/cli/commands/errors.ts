import { createErrorTimeseries } from '../../../shared/timeseries/index.js';
import type { Session } from '../session.js';

/** `itinera errors`: the error timeseries counted by metadata.key, with up to `samples` reasons each. */
export async function errors(s: Session, samples: number): Promise<number> {
  const byKey = new Map<string, { count: number; reasons: string[] }>();
  for await (const l of createErrorTimeseries(s.cql).all()) {
    const entry = byKey.get(l.key) ?? { count: 0, reasons: [] };
    entry.count += 1;
    if (entry.reasons.length < samples) entry.reasons.push(`${l.user_id} write_ts=${l.write_ts}: ${l.reason}`);
    byKey.set(l.key, entry);
  }
  if (byKey.size === 0) process.stdout.write('the error timeseries is empty\n');
  for (const [key, { count, reasons }] of byKey)
    process.stdout.write(`${key}\t${count}\n${reasons.map((r) => `    ${r}\n`).join('')}`);
  return 0;
}
