import type { Cql } from '../../shared/cassandra/index.js';
import { createDeletedUsersTable, createProfilesTable, createUsersTable } from '../../shared/tables/index.js';
import type { ImportAccounts } from './import-dump.js';

/** Accounts for an import: registered under their e-mission uuid, with the profile /profile/create would give. */
export function createImportAccounts(cql: Cql): ImportAccounts {
  const users = createUsersTable(cql, { cacheEntries: 1 });
  const deleted = createDeletedUsersTable(cql);
  const profiles = createProfilesTable(cql);
  return {
    async ensure(uuid, token, owns, since) {
      if (await deleted.isDeleted(uuid)) return false;
      const existing = await users.findByUuid(uuid);
      if (existing) return owns(existing.userEmail);
      const { user, created } = await users.registerAs(token, uuid, since);
      if (user.uuid !== uuid) return false;
      if (created)
        await profiles.create(uuid, {
          source: 'Itinera',
          create_ts: user.createTs.getTime() / 1000,
          mode: {},
          purpose: {},
        });
      return true;
    },
  };
}
