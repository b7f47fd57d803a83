import { DependencyUnavailableError } from '../errors/index.js';
import type { ProgramConfigsTable } from '../tables/index.js';
import { admitToken, type ProgramMember, type ProgramRefusal, type ServedConfig } from './domain/admit-token.js';
import { putReply, type PhoneVersions } from './domain/config-reply.js';
import { ConfigRefusal, parseDeploymentConfig } from './domain/deployment-config.js';
import { opcodeProgram } from './domain/opcode.js';

/**
 * The programs a gateway serves, as the phone API reads them: which program a token belongs to, what a put answers,
 * each program's configuration. Held in memory and read again from `program_configs` in the background at most
 * every `refreshMs`, so a saved change reaches every gateway within that time and no phone call waits on it.
 */
export interface ProgramDirectory {
  /**
   * The program a token belongs to (see admitToken); undefined when the deployment's own auth decides. A program
   * whose stored configuration cannot be read is a DependencyUnavailableError (503, which phones retry).
   */
  admit(token: string): Promise<ProgramMember | ProgramRefusal | undefined>;
  /** A put's answer for a member of `program`: its configuration when the phone's copy is outdated, else `{}`. */
  putReply(program: string, phone: PhoneVersions): Record<string, unknown>;
  /** A program's configuration as served, if the deployment serves it (unreadable: as for admit). */
  config(program: string): Promise<ServedConfig | undefined>;
  /** Whether the deployment serves any program (without one, it is a single implicit program). */
  servesPrograms(): Promise<boolean>;
}

export interface ProgramDirectoryOptions {
  /** Longest a saved change takes to reach this gateway. @defaultValue 5000 */
  refreshMs?: number;
  /** A stored document that no longer passes the schema, or a failed background read. */
  onProblem?: (message: string) => void;
  now?: () => number;
}

/** The programs as read: those served, and those whose stored configuration could not be read, with why. */
interface Programs {
  served: Map<string, ServedConfig>;
  unreadable: Map<string, string>;
}

export function createProgramDirectory(
  table: ProgramConfigsTable,
  { refreshMs = 5_000, onProblem = () => undefined, now = Date.now }: ProgramDirectoryOptions = {},
): ProgramDirectory {
  let programs: Programs | undefined;
  let loadedAt = 0;
  let loading: Promise<Programs> | undefined;

  function load(): Promise<Programs> {
    loading ??= table
      .latestOfEach()
      .then((rows) => {
        const next: Programs = { served: new Map(), unreadable: new Map() };
        // Each row on its own: a document that today's schema refuses costs its own program, never the others.
        for (const row of rows) {
          const config = parseDeploymentConfig(row.document);
          if (config instanceof ConfigRefusal) {
            next.unreadable.set(row.program, config.message);
            onProblem(
              `program ${row.program}: its stored configuration no longer passes the schema: ${config.message}`,
            );
          } else next.served.set(row.program, { program: row.program, config });
        }
        programs = next;
        loadedAt = now();
        return next;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  }

  /** The programs as last read; the first call waits for the read (an outage then answers 503, which phones retry). */
  async function current(): Promise<Programs> {
    if (!programs) return load();
    if (now() - loadedAt >= refreshMs)
      load().catch((err: unknown) => onProblem(`programs were not read again: ${String(err)}`));
    return programs;
  }

  /**
   * Not refused (a 403 makes the phone sign out and drop its unsent entries) nor served from a document the app may
   * not read: the program's phones are told to come back, until an operator saves a version that passes.
   */
  function checkReadable({ unreadable }: Programs, program: string): void {
    const reason = unreadable.get(program);
    if (reason !== undefined)
      throw new DependencyUnavailableError(
        `program ${program} is unavailable: its stored configuration cannot be read`,
        {
          details: { program, reason },
        },
      );
  }

  return {
    async admit(token) {
      // A token that names no program never depended on the programs: it is admitted as before, read or not.
      const program = opcodeProgram(token);
      if (program === undefined) return undefined;
      const read = await current();
      checkReadable(read, program);
      // A deployment whose only programs are unreadable still has programs: another program's token is unknown.
      return admitToken(token, read.served, read.served.size + read.unreadable.size > 0);
    },
    putReply(program, phone) {
      return putReply(programs?.served.get(program)?.config, phone);
    },
    async config(program) {
      const read = await current();
      checkReadable(read, program);
      return read.served.get(program);
    },
    async servesPrograms() {
      const read = await current();
      return read.served.size + read.unreadable.size > 0;
    },
  };
}
