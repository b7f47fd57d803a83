import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface DumpFile {
  path: string;
  /** Size on disk (compressed size for `.gz`): the total to show progress against `onBytes`. */
  bytes: number;
}

/** Timeseries dumps: e-mission's JSON array export, mongoexport's NDJSON, either gzipped. */
const DUMP_NAME = /\.(json|ndjson|jsonl)(\.gz)?$/i;
/**
 * e-mission's `*.ground_truth.json` files hold the trips its pipeline made (a `{"data": [...]}` document), not
 * timeseries entries. The reader would also refuse them by shape; leaving them out by name keeps them out of the
 * skip report, where they would look like damage.
 */
const NOT_TIMESERIES = /ground_truth/i;

export function isDumpFileName(name: string): boolean {
  return DUMP_NAME.test(name) && !NOT_TIMESERIES.test(name);
}

/** Names in code-unit order, the same on every machine and locale, so two runs read the files in the same order. */
function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function walk(dir: string, out: DumpFile[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => byName(a.name, b.name));
  for (const entry of entries) {
    // Hidden entries are tool droppings (.DS_Store, macOS `._x.json` resource forks), never dumps.
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      await walk(path, out);
    } else if (isDumpFileName(entry.name)) {
      // stat follows a symbolic link to a file; a link to a directory is not walked, so a cycle cannot loop.
      const info = await stat(path);
      if (info.isFile()) out.push({ path, bytes: info.size });
    }
  }
}

/**
 * The dump files under `path`, in the order they are read: a file is itself, whatever its name (naming a file is
 * asking for it); a folder is walked recursively, each folder's entries by name, keeping only dump names
 * (`.json`, `.ndjson`, `.jsonl`, each optionally `.gz`) that are not ground truths.
 */
export async function listDumpFiles(path: string): Promise<DumpFile[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [{ path, bytes: info.size }];
  const out: DumpFile[] = [];
  await walk(path, out);
  return out;
}
