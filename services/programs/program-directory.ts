import type { ProgramConfigsTable } from '../../shared/tables/index.js';
import { admitToken, type ProgramMember, type ProgramRefusal, type ServedConfig } from './domain/admit-token.js';
import { putReply, type PhoneVersions } from './domain/config-reply.js';
import { DeploymentConfigSchema, type DeploymentConfig } from './domain/deployment-config.js';

/**
 * The programs a gateway serves, as the phone API reads them: which program a token belongs to, what a put answers,
 * each program's configuration. Held in memory and read again from `program_configs` in the background at most
 * every `refreshMs`, so a saved change reaches every gateway within that time and no phone call waits on it.
 */
export interface ProgramDirectory {
  /** The program a token belongs to (see admitToken); undefined when the deployment's own auth decides. */
  admit(token: string): Promise<ProgramMember | ProgramRefusal | undefined>;
  /** A put's answer for a member of `program`: its configuration when the phone's copy is outdated, else `{}`. */
  putReply(program: string, phone: PhoneVersions): Record<string, unknown>;
  /** A program's configuration as served, if the deployment serves it. */
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

export function createProgramDirectory(
  table: ProgramConfigsTable,
  { refreshMs = 5_000, onProblem = () => undefined, now = Date.now }: ProgramDirectoryOptions = {},
): ProgramDirectory {
  let programs: Map<string, ServedConfig> | undefined;
  let loadedAt = 0;
  let loading: Promise<Map<string, ServedConfig>> | undefined;

  /** A stored document as served: checked again, since the schema may have grown stricter since it was saved. */
  function served(program: string, document: string): ServedConfig {
    const json: unknown = JSON.parse(document);
    const parsed = DeploymentConfigSchema.safeParse(json);
    if (!parsed.success)
      // Served anyway: refusing the program's tokens would make every phone in it sign out and wipe its data.
      onProblem(`program ${program}: its stored configuration no longer passes the schema: ${parsed.error.message}`);
    return { program, config: parsed.success ? parsed.data : (json as DeploymentConfig) };
  }

  function load(): Promise<Map<string, ServedConfig>> {
    loading ??= table
      .latestOfEach()
      .then((rows) => {
        programs = new Map(rows.map((row) => [row.program, served(row.program, row.document)]));
        loadedAt = now();
        return programs;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  }

  /** The programs as last read; the first call waits for the read (an outage then answers 503, which phones retry). */
  async function current(): Promise<Map<string, ServedConfig>> {
    if (!programs) return load();
    if (now() - loadedAt >= refreshMs)
      load().catch((err: unknown) => onProblem(`programs were not read again: ${String(err)}`));
    return programs;
  }

  return {
    async admit(token) {
      return admitToken(token, await current());
    },
    putReply(program, phone) {
      return putReply(programs?.get(program)?.config, phone);
    },
    async config(program) {
      return (await current()).get(program);
    },
    async servesPrograms() {
      return (await current()).size > 0;
    },
  };
}
