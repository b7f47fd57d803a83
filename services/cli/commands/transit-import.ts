import { Presets, SingleBar } from 'cli-progress';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createTransitStopsTable } from '../../../shared/tables/index.js';
import {
  osmFormatOf,
  readTransitElements,
  stopsWithRoutes,
  type TransitElement,
} from '../../trip-builder/domain/modes/index.js';
import { fail, type Session } from '../session.js';

/**
 * `itinera transit-import <file.osm.pbf | file.osm>`: loads a regional OpenStreetMap extract's bus stops, stations,
 * platforms and route relations into `transit_stops`, where the trip builder's mode inference looks for the stops
 * around a section's ends (running trip builders see a new import within ten minutes; trips already built keep
 * their modes until rebuilt: `reset-pipeline`). Only transit elements are kept in memory, and an import again of
 * the same or a newer extract overwrites stop by stop.
 */
export async function transitImport(s: Session, path: string): Promise<number> {
  const format = osmFormatOf(path) ?? fail('transit-import needs a .osm.pbf, .pbf, .osm or .xml file');
  const { size } = await stat(path);
  const bar = new SingleBar(
    {
      format: 'transit-import [{bar}] {percentage}% | pass {pass} | {elements} transit elements',
      stream: process.stderr,
    },
    Presets.shades_classic,
  );
  let pass = 0;
  let elementsSeen = 0;
  bar.start(size, 0, { pass, elements: 0 });
  const elements: TransitElement[] = [];
  for await (const element of readTransitElements({
    format,
    // The reader reads the file a second time when station areas need their nodes' positions.
    open: () => {
      pass += 1;
      bar.update(0, { pass });
      const stream = createReadStream(path);
      stream.on('data', (chunk) => bar.increment(chunk.length));
      return stream;
    },
  })) {
    elements.push(element);
    if (++elementsSeen % 1000 === 0) bar.update({ elements: elementsSeen });
  }
  bar.update(size, { elements: elementsSeen });
  bar.stop();

  const stops = stopsWithRoutes(elements);
  const saving = new SingleBar(
    { format: 'saving [{bar}] {percentage}% | {value}/{total} stops', stream: process.stderr },
    Presets.shades_classic,
  );
  saving.start(stops.length, 0);
  await createTransitStopsTable(s.cql).save(stops, (n) => saving.increment(n));
  saving.stop();
  const routes = new Set(stops.flatMap((stop) => stop.routes.map((r) => r.id))).size;
  process.stdout.write(`imported ${stops.length} stops served by ${routes} routes from ${path}\n`);
  return 0;
}
