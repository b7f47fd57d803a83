import type { Cql, Statement } from '../../../shared/cassandra/index.js';
import { ValidationError } from '../../../shared/errors/index.js';
import { createCustomLabelsTable, type CustomLabelRow as LabelRow } from '../../../shared/tables/index.js';
import type { CustomLabelKey, CustomLabelStore } from '../stores.js';

/**
 * Most labels kept per user and key, active or deleted-but-remembered. The app's own label lists hold about
 * twenty entries and its input field takes 25 characters per label; 200 is far beyond a person's vocabulary of
 * trip modes, and keeps a get at one small partition slice (3 keys × 200 rows × ≤ 400 bytes per user).
 */
export const MAX_LABELS_PER_KEY = 200;

/** Active labels, most used first; ties in creation order (e-mission's stable sort over dict insertion order). */
export function activeLabels(rows: Iterable<LabelRow>): string[] {
  return [...rows]
    .filter((r) => r.active)
    .sort(
      (a, b) =>
        b.frequency - a.frequency ||
        a.createdAt.getTime() - b.createdAt.getTime() ||
        (a.label < b.label ? -1 : a.label > b.label ? 1 : 0),
    )
    .map((r) => r.label);
}

export function createCassandraCustomLabelStore(cql: Cql): CustomLabelStore {
  // Changes are read-modify-write of absolute values (so each write is an idempotent upsert the driver may retry,
  // unlike a counter). Calls of one user on this gateway run one after another; two gateways changing the same
  // user's labels in the same instant can lose one frequency step, which only reorders that user's list.
  const queues = new Map<string, Promise<unknown>>();
  function oneAtATime<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const previous = queues.get(userId) ?? Promise.resolve();
    const result = previous.then(work, work);
    const settled = result.catch(() => undefined);
    queues.set(userId, settled);
    void settled.then(() => {
      if (queues.get(userId) === settled) queues.delete(userId);
    });
    return result;
  }

  const table = createCustomLabelsTable(cql);
  // One past the bound: the rows are never more than MAX_LABELS_PER_KEY, and a read stays bounded if they were.
  const load = (userId: string, key: CustomLabelKey) => table.read(userId, key, MAX_LABELS_PER_KEY + 1);
  const write = (statement: Statement) => cql.write(statement.query, statement.params);

  function roomFor(rows: Map<string, LabelRow>, key: CustomLabelKey): void {
    if (rows.size >= MAX_LABELS_PER_KEY)
      throw new ValidationError(`a user may keep at most ${MAX_LABELS_PER_KEY} custom ${key} labels`, {
        details: { field: 'label', limit: MAX_LABELS_PER_KEY },
      });
  }

  return {
    async list(userId, key) {
      return activeLabels((await load(userId, key)).values());
    },

    insert(userId, key, label) {
      return oneAtATime(userId, async () => {
        const rows = await load(userId, key);
        const now = new Date();
        const existing = rows.get(label);
        if (existing?.active) return activeLabels(rows.values());
        if (!existing) roomFor(rows, key);
        const row: LabelRow = existing
          ? { ...existing, active: true }
          : { label, createdAt: now, frequency: 0, active: true };
        await write(table.upsert(userId, key, row, now));
        rows.set(label, row);
        return activeLabels(rows.values());
      });
    },

    update(userId, key, { oldLabel, newLabel, addIfMissing }) {
      return oneAtATime(userId, async () => {
        const rows = await load(userId, key);
        const now = new Date();
        const changed = new Map<string, LabelRow>();
        // The three steps of e-mission's updateUserCustomLabel, in its order (old === new nets to no change).
        const target = rows.get(newLabel);
        if (target) {
          changed.set(newLabel, { ...target, frequency: target.frequency + 1, active: true });
        } else if (addIfMissing) {
          roomFor(rows, key);
          changed.set(newLabel, { label: newLabel, createdAt: now, frequency: 1, active: true });
        }
        if (oldLabel) {
          const source = changed.get(oldLabel) ?? rows.get(oldLabel);
          if (source) changed.set(oldLabel, { ...source, frequency: source.frequency - 1 });
        }
        if (changed.size > 0) {
          // One partition: the unlogged batch applies both rows or neither.
          await cql.writeBatch([...changed.values()].map((row) => table.upsert(userId, key, row, now)));
          for (const [label, row] of changed) rows.set(label, row);
        }
        return activeLabels(rows.values());
      });
    },

    remove(userId, key, label) {
      return oneAtATime(userId, async () => {
        const rows = await load(userId, key);
        const existing = rows.get(label);
        if (!existing?.active) return activeLabels(rows.values());
        if (existing.frequency > 0) {
          // Used at least once: kept inactive, as e-mission does, so a re-insert gets its frequency back.
          const row = { ...existing, active: false };
          await write(table.upsert(userId, key, row, new Date()));
          rows.set(label, row);
        } else {
          // Never used: nothing to remember, and the row stops counting towards MAX_LABELS_PER_KEY.
          await write(table.remove(userId, key, label));
          rows.delete(label);
        }
        return activeLabels(rows.values());
      });
    },
  };
}
