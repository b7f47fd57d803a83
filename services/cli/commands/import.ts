import { randomUUID } from 'node:crypto';
import { SingleBar, Presets } from 'cli-progress';
import { topicName } from '../../../shared/events/index.js';
import { createUsersTable, type UserStore } from '../../../shared/tables/index.js';
import { createKeyedProducer } from '../../../shared/kafka/index.js';
import { tokenFromBody } from '../../gateway/auth/resolve-token.js';
import { createUsercachePublisher } from '../../gateway/ingest/kafka-usercache-publisher.js';
import { createImportAccounts } from '../../import/cassandra-import-accounts.js';
import type { ImportSkip } from '../../import/domain/emission-entry.js';
import { entriesOfOneUser, type OneUser } from '../../import/domain/one-user.js';
import { isUuidShaped } from '../../../shared/ids/uuid-shaped.js';
import { readUuidTokens } from '../../import/dump/read-uuid-tokens.js';
import { importDump, type ImportAccounts } from '../../import/import-dump.js';
import { listDumpFiles } from '../../import/dump/list-dump-files.js';
import { readEmissionEntries } from '../../import/dump/read-emission-dump.js';
import { fail, type Session } from '../session.js';
import { prepareProgramImport } from './import-program.js';

/**
 * The accounts of an import, each imported user's token passed to `admitted` once their account exists: the token
 * the account holds, which on a rerun or with --merge is not the one this run would have given it.
 */
function admitting(
  accounts: ImportAccounts,
  users: Pick<UserStore, 'findByUuid'>,
  admitted: ((token: string) => Promise<void>) | undefined,
): ImportAccounts {
  if (!admitted) return accounts;
  return {
    async ensure(uuid, token, owns, since) {
      const ok = await accounts.ensure(uuid, token, owns, since);
      const account = ok ? await users.findByUuid(uuid) : undefined;
      if (account) await admitted(account.userEmail);
      return ok;
    },
  };
}

/** What `--uuid` and `--token` ask for: one user of the dump, into one account. */
export interface OneUserOptions {
  uuid?: string;
  token?: string;
}

/**
 * The dump's user and the account `--uuid` / `--token` name. The token is checked as a phone's would be (and may not
 * look like a uuid, which is reserved for accounts imported without their token); its account, when it exists, is
 * the one the entries go into, whatever uuid they had in the dump.
 */
async function chooseOneUser(
  users: Pick<UserStore, 'findByEmail'>,
  { uuid, token }: OneUserOptions,
): Promise<{ choice: OneUser; token: string | undefined }> {
  const from = uuid === undefined ? undefined : uuid.toLowerCase();
  if (from !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(from))
    fail(`import --uuid needs a uuid (8-4-4-4-12 hexadecimal digits), not ${JSON.stringify(uuid)}`);
  if (token === undefined) return { choice: { from, into: from! }, token: undefined };
  try {
    tokenFromBody({ user: token });
  } catch (err) {
    fail(`import --token: ${(err as Error).message}`);
  }
  if (isUuidShaped(token))
    fail('import --token: a token shaped like a uuid is reserved for accounts imported without one');
  const account = await users.findByEmail(token);
  return { choice: { from, into: account?.uuid ?? from ?? randomUUID() }, token };
}

/** Skips printed one by one; past this only their count is. */
const SKIPS_SHOWN = 20;

/**
 * `itinera import <path> [--uuids Stage_uuids.ndjson]`: pushes an e-mission dump (a file or a folder; e-mission's
 * JSON array export or mongoexport NDJSON, gzip accepted) through the ingest path (services/import). Users keep their
 * e-mission uuid; with e-mission's `Stage_uuids` export they also keep their token, else the token is the uuid.
 * With `--program`, the users go into that program (import-program.ts). With `--uuid` and/or `--token`, one user
 * of the dump goes into one account (chooseOneUser), the only way entries without a `user_id` are imported.
 */
export async function importCommand(
  s: Session,
  path: string,
  uuidsFile: string | undefined,
  into?: { program: string; configFile: string | undefined },
  merge = false,
  oneUser?: OneUserOptions,
): Promise<number> {
  const tokens = uuidsFile ? await readUuidTokens(uuidsFile) : new Map<string, string>();
  const one = oneUser ? await chooseOneUser(createUsersTable(s.cql, { cacheEntries: 1 }), oneUser) : undefined;
  if (one?.token !== undefined) tokens.set(one.choice.into, one.token);
  const accounts = into
    ? await prepareProgramImport(s, into.program, into.configFile, tokens)
    : { tokenOf: (uuid: string) => tokens.get(uuid) ?? uuid, owns: undefined, admitted: undefined };
  const owns = merge ? () => true : accounts.owns;
  const totalBytes = (await listDumpFiles(path)).reduce((sum, f) => sum + f.bytes, 0);
  const bar = new SingleBar(
    { format: 'import [{bar}] {percentage}% | {value}/{total} bytes | {entries} entries', stream: process.stderr },
    Presets.shades_classic,
  );
  bar.start(totalBytes, 0, { entries: 0 });
  const skips: ImportSkip[] = [];
  let skipped = 0;
  const onSkip = (skip: ImportSkip) => {
    skipped += 1;
    if (skips.length < SKIPS_SHOWN) skips.push(skip);
  };
  let read = 0;
  const producer = createKeyedProducer({ ...s.config.kafka, clientId: 'itinera-import' });
  try {
    const counts = await importDump(
      {
        accounts: admitting(
          createImportAccounts(s.cql),
          createUsersTable(s.cql, { cacheEntries: 1 }),
          accounts.admitted,
        ),
        publisher: createUsercachePublisher({
          producer,
          codec: s.codec,
          topic: topicName(s.config.kafka.topicPrefix, 'usercache'),
        }),
        tokenOf: accounts.tokenOf,
        ...(owns ? { owns } : {}),
        now: () => Date.now() / 1000,
      },
      (async function* counted() {
        const all = readEmissionEntries(path, {
          onBytes: (n) => bar.increment(n),
          onSkip,
          // An entry without a user_id is the named user's (a phone's own export): without a name it is skipped.
          ...(one ? { defaultUser: one.choice.from ?? one.choice.into } : {}),
        });
        for await (const e of one ? entriesOfOneUser(all, one.choice, onSkip) : all) {
          read += 1;
          if (read % 1000 === 0) bar.update({ entries: read });
          yield e;
        }
      })(),
      onSkip,
    );
    bar.update(totalBytes, { entries: read });
    bar.stop();
    for (const skip of skips)
      process.stdout.write(`skipped ${skip.file}${skip.line ? `:${skip.line}` : ''}: ${skip.reason}\n`);
    if (skipped > skips.length) process.stdout.write(`… and ${skipped - skips.length} more skipped\n`);
    process.stdout.write(
      `imported ${counts.users} users: ${counts.pushed} entries pushed, ${counts.derived} e-mission derived entries left out (Itinera derives its own), ${counts.refused} refused\n`,
    );
    return 0;
  } finally {
    bar.stop();
    await producer.close();
  }
}
