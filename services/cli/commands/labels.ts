import { composeTripBuilderStores } from '../../trip-builder/compose.js';
import { labelsReport } from '../labels-report.js';
import { fail, resolveUser, type Session } from '../session.js';

/** `itinera labels <user> [-d DATE]`: a day's trips with their labels (default: the user's last day of trips). */
export async function labels(s: Session, who: string, date: string | undefined): Promise<number> {
  const uuid = await resolveUser(s, who);
  const { trips, timeseries } = composeTripBuilderStores(s.cql);
  const day = date ?? (await trips.latestTrips(uuid, 1))[0]?.localDate;
  if (day === undefined) fail(`no trips for ${uuid}`, 1);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) fail('labels -d needs a date YYYY-MM-DD');
  process.stdout.write(await labelsReport({ trips, timeseries }, uuid, day));
  return 0;
}
