import type { Cql } from '../cassandra/index.js';

/**
 * Table `program_configs` (schemas/cql/015): every version of every program's deployment configuration. Written by
 * the operators' tools (npx itinera program, the console); read by the gateway, which serves the newest version of
 * each program to phones.
 */
const TABLE = 'program_configs';

export interface ProgramConfigRow {
  program: string;
  version: number;
  /** The configuration document as JSON text, exactly as saved. */
  document: string;
  changedAt: Date;
  changedBy: string;
  note: string;
}

export interface ProgramConfigsTable {
  /** Adds a version; false when that version of the program already exists (nothing is then written). */
  add(row: ProgramConfigRow): Promise<boolean>;
  /** The newest version of every program, by program name. */
  latestOfEach(): Promise<ProgramConfigRow[]>;
  /** The newest version of one program, if it has any. */
  latest(program: string): Promise<ProgramConfigRow | undefined>;
  /** Every version of one program, newest first, at most `limit`. */
  history(program: string, limit?: number): Promise<ProgramConfigRow[]>;
}

const COLUMNS = 'program, version, document, changed_at, changed_by, note';

function toRow(r: Record<string, unknown>): ProgramConfigRow {
  return {
    program: String(r['program']),
    version: Number(r['version']),
    document: String(r['document'] ?? ''),
    changedAt: r['changed_at'] instanceof Date ? r['changed_at'] : new Date(0),
    changedBy: String(r['changed_by'] ?? ''),
    note: String(r['note'] ?? ''),
  };
}

export function createProgramConfigsTable(cql: Cql): ProgramConfigsTable {
  return {
    async add(row) {
      const rs = await cql.conditional(`INSERT INTO ${TABLE} (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS`, [
        row.program,
        row.version,
        row.document,
        row.changedAt,
        row.changedBy,
        row.note,
      ]);
      return rs.rows[0]?.['[applied]'] === true;
    },
    async latestOfEach() {
      // A deployment holds tens of programs, not millions: one scan of the partitions' first rows.
      const rows: ProgramConfigRow[] = [];
      for await (const r of cql.iterate(`SELECT ${COLUMNS} FROM ${TABLE} PER PARTITION LIMIT 1`)) rows.push(toRow(r));
      return rows.sort((a, b) => a.program.localeCompare(b.program));
    },
    async latest(program) {
      const rs = await cql.read(`SELECT ${COLUMNS} FROM ${TABLE} WHERE program = ? LIMIT 1`, [program]);
      return rs.rows[0] ? toRow(rs.rows[0]) : undefined;
    },
    async history(program, limit = 100) {
      const rs = await cql.read(`SELECT ${COLUMNS} FROM ${TABLE} WHERE program = ? LIMIT ?`, [program, limit]);
      return rs.rows.map(toRow);
    },
  };
}
