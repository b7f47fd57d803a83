import { LRUCache } from 'lru-cache';
import type { Cql } from '../../../shared/cassandra/index.js';
import { createTransitStopsTable, transitCellsOf } from '../../../shared/tables/index.js';
import { compareStops, stopSearchBox, type TransitStop, type TransitStops } from '../domain/modes/index.js';

export interface CassandraTransitStopsOptions {
  /** Grid cells (about 1 km², a few stops each) remembered. @defaultValue 20000 */
  cacheCells?: number;
  /**
   * How long a cell, and "nothing imported", is believed: a new import reaches running trip builders within this.
   * @defaultValue 600000
   */
  recheckMs?: number;
}

/**
 * The stops the rule engine asks for, from the `transit_stops` table (filled by `npx itinera transit-import`).
 * Stops change only with an import, and trips of one region ask for the same cells over and over, so cells are
 * cached; with nothing imported no cell is read at all (IN_VEHICLE is then CAR, as e-mission without Overpass).
 */
export function createCassandraTransitStops(
  cql: Cql,
  { cacheCells = 20_000, recheckMs = 600_000 }: CassandraTransitStopsOptions = {},
): TransitStops {
  const table = createTransitStopsTable(cql);
  const cells = new LRUCache<string, TransitStop[]>({
    max: cacheCells,
    ttl: recheckMs,
    fetchMethod: async (cell) => (await table.inCell(cell)).map((json) => JSON.parse(json) as TransitStop),
  });
  let imported: { value: boolean; until: number } | undefined;
  async function anyImported(): Promise<boolean> {
    if (!imported || imported.until < Date.now())
      imported = { value: !(await table.isEmpty()), until: Date.now() + recheckMs };
    return imported.value;
  }
  return {
    async stopsNear(point) {
      if (!(await anyImported())) return [];
      const box = stopSearchBox(point);
      const found = (await Promise.all(transitCellsOf(box).map(async (cell) => (await cells.fetch(cell)) ?? [])))
        .flat()
        .filter((s) => s.lon >= box.minLon && s.lon <= box.maxLon && s.lat >= box.minLat && s.lat <= box.maxLat);
      return found.sort(compareStops);
    },
  };
}
