import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors/index.js';
import type { ProgramConfigRow, ProgramConfigsTable } from '../../shared/tables/index.js';
import { ConfigRefusal, parseDeploymentConfig, PROGRAM_NAME } from './domain/deployment-config.js';
import { checkNextVersion } from './domain/next-version.js';

/** A new version of a program's configuration, as an operator hands it in. */
export interface ProgramChange {
  program: string;
  /** The configuration document, JSON text (an op-deployment-configs file as it is). */
  document: string;
  /** Label options (the JSON a `label_options` URL points at) to inline, so phones need nothing from elsewhere. */
  labelOptions?: string;
  /** Who saves it: the operator's e-mail or login. */
  by: string;
  /** Why, for the history. */
  note?: string;
}

/** The operators' actions on programs, shared by `npx itinera program` and the console. */
export interface ProgramManager {
  /** Saves the first version of a new program; a program that exists is a ConflictError. */
  create(change: ProgramChange): Promise<ProgramConfigRow>;
  /** Saves a new version; its `version` must be above the current one (ConflictError), the program must exist. */
  update(change: ProgramChange): Promise<ProgramConfigRow>;
  /** The newest version of every program. */
  list(): Promise<ProgramConfigRow[]>;
  /** A program's current configuration (NotFoundError when there is none). */
  show(program: string): Promise<ProgramConfigRow>;
  /** Every version of a program, newest first. */
  history(program: string): Promise<ProgramConfigRow[]>;
}

function checkName(program: string): void {
  if (!PROGRAM_NAME.test(program))
    throw new ValidationError(
      `program name "${program}": letters, digits and "-" only, at most 64 (tokens are split on "_")`,
      {
        details: { field: 'program' },
      },
    );
}

/** The change's document, checked, with the label options inlined: the text to store and its version. */
function documentOf(change: ProgramChange) {
  let text = change.document;
  if (change.labelOptions !== undefined) {
    let labels: unknown;
    try {
      labels = JSON.parse(change.labelOptions);
    } catch (err) {
      throw new ValidationError(`label options: not JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    const doc = parseDeploymentConfig(text);
    if (doc instanceof ConfigRefusal) throw new ValidationError(`configuration refused: ${doc.message}`);
    text = JSON.stringify({ ...doc, label_options: labels });
  }
  const config = parseDeploymentConfig(text);
  if (config instanceof ConfigRefusal)
    throw new ValidationError(`configuration refused: ${config.message}`, { details: { problems: config.problems } });
  return { text, config };
}

export function createProgramManager(table: ProgramConfigsTable, now: () => Date = () => new Date()): ProgramManager {
  async function save(change: ProgramChange, version: number, text: string): Promise<ProgramConfigRow> {
    const row = {
      program: change.program,
      version,
      document: text,
      changedAt: now(),
      changedBy: change.by,
      note: change.note ?? '',
    };
    if (!(await table.add(row)))
      throw new ConflictError(`program ${change.program} already has a version ${version}: raise "version"`);
    return row;
  }

  async function current(program: string): Promise<ProgramConfigRow> {
    checkName(program);
    const row = await table.latest(program);
    if (!row) throw new NotFoundError(`no program "${program}"`);
    return row;
  }

  return {
    async create(change) {
      checkName(change.program);
      const { text, config } = documentOf(change);
      if (await table.latest(change.program))
        throw new ConflictError(`program ${change.program} exists: change it with update`);
      return save(change, config.version, text);
    },
    async update(change) {
      const existing = await current(change.program);
      const { text, config } = documentOf(change);
      const refusal = checkNextVersion(existing.version, config.version);
      if (refusal !== undefined) throw new ConflictError(`program ${change.program}: ${refusal}`);
      return save(change, config.version, text);
    },
    list: () => table.latestOfEach(),
    show: current,
    async history(program) {
      await current(program);
      return table.history(program);
    },
  };
}
