import { ConflictError, NotFoundError, ValidationError } from '../errors/index.js';
import type { ProgramConfigRow, ProgramConfigsTable } from '../tables/index.js';
import { TOKEN_PART, TOKEN_PART_RULE } from '../ids/token-part.js';
import { ConfigRefusal, parseDeploymentConfig, type DeploymentConfig } from './domain/deployment-config.js';
import { closesSelfMadeTokens, lockoutMessage, lockoutOf, mayLockOut } from './domain/lockout.js';
import { checkNextVersion } from './domain/next-version.js';
import type { ProgramParticipants } from './program-participants.js';

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
  /** Save a version that would lock participants out of the program (see domain/lockout.ts). */
  force?: boolean;
}

/** The operators' actions on programs, shared by `npx itinera program` and the console. */
export interface ProgramManager {
  /** Saves the first version of a new program; a program that exists is a ConflictError. */
  create(change: ProgramChange): Promise<ProgramConfigRow>;
  /**
   * Saves a new version; its `version` must be above the current one (ConflictError), the program must exist. A
   * version that would refuse participants the current one admits is a ConflictError naming them, unless forced.
   */
  update(change: ProgramChange): Promise<ProgramConfigRow>;
  /** The newest version of every program. */
  list(): Promise<ProgramConfigRow[]>;
  /** A program's current configuration (NotFoundError when there is none). */
  show(program: string): Promise<ProgramConfigRow>;
  /** Every version of a program, newest first. */
  history(program: string): Promise<ProgramConfigRow[]>;
}

function checkName(program: string): void {
  if (!TOKEN_PART.test(program))
    throw new ValidationError(`program name "${program}": ${TOKEN_PART_RULE}`, {
      details: { field: 'program' },
    });
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

export interface ProgramManagerOptions {
  /**
   * Who is in each program, to count whom a new version would lock out. Without it, a version that could lock anyone
   * out is refused unless forced, since nobody can be counted.
   */
  participants?: ProgramParticipants;
  now?: () => Date;
}

export function createProgramManager(
  table: ProgramConfigsTable,
  { participants, now = () => new Date() }: ProgramManagerOptions = {},
): ProgramManager {
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

  /** Refuses a version that would shut out participants the current version admits. */
  async function checkLockout(program: string, current: DeploymentConfig, next: DeploymentConfig): Promise<void> {
    if (!mayLockOut(current, next)) return;
    if (!participants) throw new ConflictError(lockoutMessage(program, 'uncounted'));
    const tokens = await participants.tokens(program);
    const issued = closesSelfMadeTokens(current, next) ? await participants.issued(tokens) : new Set<string>();
    const lockout = lockoutOf(current, next, tokens, issued);
    if (lockout)
      throw new ConflictError(lockoutMessage(program, lockout), {
        details: { subgroups: Object.fromEntries(lockout.subgroups), selfMade: lockout.selfMade },
      });
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
      // A stored version that no longer passes the schema is not served (its phones are answered 503 and wait), so
      // the new version cannot shut out anyone that one lets in.
      const previous = parseDeploymentConfig(existing.document);
      if (change.force !== true && !(previous instanceof ConfigRefusal))
        await checkLockout(change.program, previous, config);
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
