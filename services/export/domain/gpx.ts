import { create, fragment } from 'xmlbuilder2';
import {
  type CompositeTrip,
  flattenLabels,
  isFiniteNumber,
  isUntracked,
  locationLonLat,
  locationsInTimeOrder,
  type SectionEntry,
  type TimedLocation,
} from './composite-trip.js';

export const GPX_NAMESPACE = 'http://www.topografix.com/GPX/1/1';

/**
 * Characters XML 1.0 cannot carry at all, even escaped (control characters, lone surrogates), are dropped from text
 * and attributes: by default xmlbuilder2 writes them as they are, which makes the whole document unreadable, and a
 * label typed on a phone can hold one.
 */
const DROP_UNWRITABLE_CHARACTERS = { invalidCharReplacement: '' };

export interface GpxOptions {
  /** The `creator` attribute GPX 1.1 requires: the software that wrote the file. */
  creator?: string;
}

/**
 * Composite trips as a GPX 1.1 document, yielded in chunks: the `<gpx>` opening, one `<trk>` per trip, the closing.
 * Each `<trk>` is built by xmlbuilder2 on its own and serialised at once, so memory is bounded by one trip however
 * long the history; the fragments inherit the GPX default namespace from the enclosing `<gpx>` element.
 *
 * Untracked periods are skipped: GPX has no way to say "no data here", and a straight line would read as a route.
 */
export async function* gpxDocument(trips: AsyncIterable<CompositeTrip>, opts: GpxOptions = {}): AsyncGenerator<string> {
  const { opening, closing } = gpxEnvelope(opts.creator ?? 'Itinera');
  yield opening;
  for await (const trip of trips) {
    if (isUntracked(trip)) continue;
    yield `\n${tripTrack(trip)}`;
  }
  yield `\n${closing}\n`;
}

/**
 * The document's opening and closing, cut from an empty `<gpx>` built by the library so that the creator (which
 * may come from configuration or a request) is escaped like everything else.
 */
function gpxEnvelope(creator: string): { opening: string; closing: string } {
  const closing = '</gpx>';
  const empty = create({ version: '1.0', encoding: 'UTF-8', ...DROP_UNWRITABLE_CHARACTERS })
    .ele(GPX_NAMESPACE, 'gpx', { version: '1.1', creator })
    .end({ allowEmptyTags: true });
  return { opening: empty.slice(0, -closing.length), closing };
}

/**
 * One trip as a `<trk>` fragment: its start time as `<name>` (local, as the app shows it; UTC when not stored), its
 * labels as `<desc>` (one `key: label` per line), and one `<trkseg>` per section holding the locations timed within
 * it. A location on the boundary of two sections (where the mode changed) is in both, so each segment is drawn from
 * where its mode started to where it ended. Without sections, all the locations make one segment.
 *
 * xmlbuilder2 builds the element and its text (name, desc: a label can hold anything, and it escapes them); the
 * segments are written by `trackSegmentXml` and spliced in before `</trk>`, since building a thousand points with
 * the library blocks the event loop for about a tenth of a second.
 */
export function tripTrack(trip: CompositeTrip): string {
  const trk = fragment(DROP_UNWRITABLE_CHARACTERS).ele('trk');
  const name = trip.data.start_fmt_time ?? isoTime(trip.data.start_ts);
  if (name !== undefined) trk.ele('name').txt(name);
  const labels = Object.entries(flattenLabels(trip.data.user_input));
  if (labels.length > 0) trk.ele('desc').txt(labels.map(([key, label]) => `${key}: ${label}`).join('\n'));
  const closing = '</trk>';
  const skeleton = trk.end({ allowEmptyTags: true });
  return `${skeleton.slice(0, -closing.length)}${trackSegments(trip).map(trackSegmentXml).join('')}${closing}`;
}

/** The trip's locations split by section; empty segments (a section with no location) are left out. */
function trackSegments(trip: CompositeTrip): TimedLocation[][] {
  const locations = locationsInTimeOrder(trip);
  const sections = trip.data.sections ?? [];
  if (sections.length === 0) return locations.length > 0 ? [[...locations]] : [];
  return sections.map((s) => locations.filter(timedWithin(s))).filter((segment) => segment.length > 0);
}

/** Bounds included; a section without its times holds no location (comparisons with NaN are false). */
function timedWithin(section: SectionEntry): (location: TimedLocation) => boolean {
  const start = section.data?.start_ts ?? NaN;
  const end = section.data?.end_ts ?? NaN;
  return (location) => location.data.ts >= start && location.data.ts <= end;
}

/** A `<trkseg>` of the locations that give a `<trkpt>`. */
export function trackSegmentXml(segment: readonly TimedLocation[]): string {
  let xml = '<trkseg>';
  for (const location of segment) xml += trackPointXml(location);
  return `${xml}</trkseg>`;
}

/**
 * A `<trkpt>` in the schema's order (`ele` before `time`), its time in UTC as GPX requires; empty for a location
 * with no usable position. One whose altitude is not a finite number loses its `<ele>`, one whose time no Date can
 * hold its `<time>`.
 *
 * Written as text, without the library: what goes in is only finite numbers (`decimal`) and `Date.toISOString()`
 * (digits, `-`, `+`, `:`, `.`, `T`, `Z`), none of which is a character XML would need to escape or cannot carry,
 * so there is nothing to escape. Anything else a location holds (a stray string, NaN, Infinity) never reaches
 * the text: `locationLonLat` and `isFiniteNumber` turn it away first.
 */
export function trackPointXml(location: TimedLocation): string {
  const position = locationLonLat(location);
  const lat = position && decimal(position[1]);
  const lon = position && decimal(position[0]);
  if (lat === undefined || lon === undefined) return '';
  const altitude = location.data.altitude;
  const ele = isFiniteNumber(altitude) ? decimal(altitude) : undefined;
  const time = isoTime(location.data.ts);
  return (
    `<trkpt lat="${lat}" lon="${lon}">` +
    (ele === undefined ? '' : `<ele>${ele}</ele>`) +
    (time === undefined ? '' : `<time>${time}</time>`) +
    '</trkpt>'
  );
}

/**
 * A finite number as an `xsd:decimal` (GPX's type for positions and elevations), which has no exponent: `String`
 * writes 1e-7 for a tiny value, so those are written out in full. Undefined for what is not a finite number, and
 * for magnitudes of 1e21 and over, which no position or elevation has and which JavaScript only writes with one.
 */
export function decimal(value: number): string | undefined {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return undefined;
  const text = String(value);
  return text.includes('e') ? value.toFixed(20).replace(/\.?0+$/, '') : text;
}

/** A timestamp in seconds as GPX's UTC time, to the nearest millisecond; undefined if no Date can hold it. */
function isoTime(ts: number): string | undefined {
  const time = new Date(Math.round(ts * 1000));
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}
