import { finished } from 'node:stream';
import pLimit from 'p-limit';
import { ConflictError, OverloadedError } from '../../shared/errors/index.js';
import { exportUser, type ExportRequest, type UserExport } from './export-user.js';
import type { ExportSources } from './stores.js';

export interface ExportBounds {
  /**
   * Exports streaming at once: each holds Cassandra reads open for as long as its client takes to download, so a
   * few clients asking for years of locations must not take the reads the phones' calls need. @defaultValue 2
   */
  exportsAtOnce?: number;
  /** Exports waiting for a slot; one more is refused with 503 OVERLOADED. @defaultValue 4 */
  exportsQueued?: number;
}

/** Exports one at a time in each of a few slots, as the gateway offers them to users. */
export interface BoundedExports {
  /**
   * The export, once a slot is free: the slot is held until its body has ended or been destroyed (the client
   * read it all, or went away), not only until it starts. One user has one export at a
   * time (a ConflictError for a second). Throws an OverloadedError when `exportsAtOnce` run and `exportsQueued` wait
   * already.
   */
  open(request: ExportRequest): Promise<UserExport>;
}

export function createBoundedExports(
  sources: ExportSources,
  { exportsAtOnce = 2, exportsQueued = 4 }: ExportBounds = {},
): BoundedExports {
  const slots = pLimit(exportsAtOnce);
  /** Users with an export waiting or streaming. */
  const busyUsers = new Set<string>();
  /** Resolves, in its turn, with the function that frees the slot. */
  const slot = () =>
    new Promise<() => void>((admitted) => {
      void slots(() => new Promise<void>((release) => admitted(release)));
    });
  return {
    async open(request) {
      if (busyUsers.has(request.userId))
        throw new ConflictError('an export of yours is still running; ask again once it has finished');
      if (slots.activeCount + slots.pendingCount >= exportsAtOnce + exportsQueued)
        throw new OverloadedError('the gateway is busy with other exports; retry later', {
          details: { running: slots.activeCount, waiting: slots.pendingCount },
        });
      busyUsers.add(request.userId);
      const releaseSlot = await slot();
      const release = () => {
        busyUsers.delete(request.userId);
        releaseSlot();
      };
      let opened: UserExport;
      try {
        opened = exportUser(sources, request);
      } catch (err) {
        release();
        throw err;
      }
      finished(opened.body, () => release());
      return opened;
    },
  };
}
