import { userInfo } from 'node:os';
import { topicName } from '../../../shared/events/index.js';
import type { KeyedProducer } from '../../../shared/kafka/index.js';
import { createLogger } from '../../../shared/logger/index.js';
import { createDeletedUsersTable, createUsersTable } from '../../../shared/tables/index.js';
import { deleteUser as deleteAccount } from '../../deletion/delete-user.js';
import { createUserErasure } from '../../deletion/user-erasure.js';
import { resolveUser, sessionProducer, type Session } from '../session.js';
import { revokeTokens } from './revoke-tokens.js';

/** The operator running the command, for the audit line. */
export function operatorName(): string {
  return process.env['SUDO_USER'] ?? process.env['USER'] ?? userInfo().username;
}

/** What deleting accounts from the command line needs; `producer` sends the diary's tombstones. */
export function accountDeletion(s: Session, producer: KeyedProducer) {
  return {
    users: createUsersTable(s.cql, { cacheEntries: 1 }),
    deletedUsers: createDeletedUsersTable(s.cql),
    erase: createUserErasure({ cql: s.cql, producer, diaryTopic: topicName(s.config.kafka.topicPrefix, 'diary') }),
    audit: createLogger({ component: 'audit' }),
  };
}

/**
 * `itinera delete-user <token or uuid> --yes [--revoke-token]`: deletes the account and every row of its data
 * (services/deletion); with --revoke-token its token is revoked first, so no phone registers with it again. Without
 * --yes it only says what it would do: there is no undo.
 */
export async function deleteUser(s: Session, who: string, confirmed: boolean, revokeToken = false): Promise<number> {
  const uuid = await resolveUser(s, who);
  if (!confirmed) {
    process.stdout.write(
      `would delete user ${uuid} and all its data${revokeToken ? ' and revoke its token' : ''}; run again with --yes to delete\n`,
    );
    return 1;
  }
  if (revokeToken) {
    // Before the deletion: once the account is gone, nothing ties the uuid to its token any more.
    const token = (await createUsersTable(s.cql, { cacheEntries: 1 }).findByUuid(uuid))?.userEmail;
    if (token !== undefined) await revokeTokens(s, [token], operatorName(), 'account deleted');
  }
  const producer = sessionProducer(s);
  try {
    const report = await deleteAccount(accountDeletion(s, producer), uuid, 'operator', operatorName());
    process.stdout.write(
      `deleted user ${uuid}: ${report.timeseriesPartitions} timeseries partitions, ${report.documents} phone documents, in ${report.tookMs} ms\n`,
    );
    return 0;
  } finally {
    await producer.close();
  }
}
