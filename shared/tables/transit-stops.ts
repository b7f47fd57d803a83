import pLimit from 'p-limit';
import { type Cql, planBatches, rowBytes } from '../cassandra/index.js';

/**
 * Table `transit_stops` (schemas/cql/014): public-transport stops imported from an OpenStreetMap extract, filed by
 * a 0.01° grid cell. Written by `npx itinera transit-import`; read by the trip builder's mode inference. What a
 * stop holds is the mode inference's business: here it is JSON with a position.
 */
const TABLE = 'transit_stops';

/** Degrees per side of a grid cell: about 1.1 km north–south, so a ±150 m box touches at most four cells. */
const CELL_DEGREES = 0.01;

export interface StoredTransitStop {
  osmType: 'node' | 'way';
  id: number;
  lon: number;
  lat: number;
}

/** The cell holding a position. */
export function transitCellOf(lon: number, lat: number): string {
  return `${Math.floor(lat / CELL_DEGREES)}:${Math.floor(lon / CELL_DEGREES)}`;
}

/** The cells a box (edges included) touches, south-west to north-east. */
export function transitCellsOf(box: { minLon: number; minLat: number; maxLon: number; maxLat: number }): string[] {
  const cells: string[] = [];
  for (let y = Math.floor(box.minLat / CELL_DEGREES); y <= Math.floor(box.maxLat / CELL_DEGREES); y++)
    for (let x = Math.floor(box.minLon / CELL_DEGREES); x <= Math.floor(box.maxLon / CELL_DEGREES); x++)
      cells.push(`${y}:${x}`);
  return cells;
}

export interface TransitStopsTable {
  /** Stores stops (an upsert by OSM type and id): a second import of the same extract changes nothing. */
  save(stops: readonly StoredTransitStop[], onSaved?: (count: number) => void): Promise<void>;
  /** The JSON of every stop filed in a cell, nodes first, each by id. */
  inCell(cell: string): Promise<string[]>;
  /** Whether any stop was ever imported: without an import, mode inference skips the lookups. */
  isEmpty(): Promise<boolean>;
}

/** Batches in flight during an import. */
const BATCHES_AT_ONCE = 8;

export function createTransitStopsTable(cql: Cql): TransitStopsTable {
  return {
    async save(stops, onSaved) {
      // A cell is one partition: its stops go in unlogged batches (one round trip each, bounded in rows and bytes)
      // rather than one write per stop, which made a 100,000-stop extract a minute of round trips.
      const rows = stops.map((stop) => {
        const statement = {
          query: `INSERT INTO ${TABLE} (cell, osm_type, osm_id, stop) VALUES (?, ?, ?, ?)`,
          params: [transitCellOf(stop.lon, stop.lat), stop.osmType, stop.id, JSON.stringify(stop)],
        };
        return { group: String(statement.params[0]), statement, bytes: rowBytes(statement), owner: stop };
      });
      const limit = pLimit(BATCHES_AT_ONCE);
      await Promise.all(
        planBatches(rows).map((batch) =>
          limit(async () => {
            await cql.writeBatch(batch.map((row) => row.statement));
            onSaved?.(batch.length);
          }),
        ),
      );
    },
    async inCell(cell) {
      const rs = await cql.read(`SELECT stop FROM ${TABLE} WHERE cell = ?`, [cell]);
      return rs.rows.map((row) => String(row['stop']));
    },
    async isEmpty() {
      const rs = await cql.read(`SELECT cell FROM ${TABLE} LIMIT 1`, []);
      return rs.rows.length === 0;
    },
  };
}
