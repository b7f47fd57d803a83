import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A dump file's name without its folder and its dump extension (`.json`, `.ndjson`, `.jsonl`, each maybe `.gz`). */
export function dumpStem(file: string): string {
  return basename(file).replace(/\.(json|ndjson|jsonl)(\.gz)?$/i, '');
}

/** The name of the ground truth e-mission's tests keep beside a day's dump: `<stem>.ground_truth.json`. */
export function groundTruthName(file: string): string {
  return `${dumpStem(file)}.ground_truth.json`;
}

/** RFC 4122 version 5 UUID (SHA-1 of the namespace's 16 bytes then the name's UTF-8), lowercase 8-4-4-4-12. */
export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replaceAll('-', ''), 'hex');
  if (ns.length !== 16) throw new RangeError(`namespace ${JSON.stringify(namespace)} is not a UUID`);
  const bytes = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The user a ground-truth day file's entries are imported and compared under: a version 5 UUID of the file's stem
 * in the namespace of its e-mission uuid. e-mission made each `<name>.ground_truth.json` by loading `<name>` alone
 * under a fresh uuid (`setupRealExample` in emission/tests/common.py overwrites every entry's `user_id` with
 * `uuid.uuid4()`), so each day starts its own chain of places; three of its day files share one phone's uuid, and
 * imported as that one user their later days would continue from a place entered days before. Deterministic, so a
 * rerun lands on the same user and duplicates nothing; independent of the folder (and of `.gz`), so moving or
 * compressing the files changes nothing.
 */
export function groundTruthUser(originalUuid: string, file: string): string {
  return uuidV5(dumpStem(file), originalUuid);
}
/**
 * The ground truth e-mission's tests keep beside a day's dump (`<stem>.ground_truth.json` in the same folder), or
 * undefined when there is none (or the file is not named as a dump).
 */
export async function groundTruthBeside(file: string): Promise<string | undefined> {
  if (dumpStem(file) === basename(file)) return undefined;
  const truth = join(dirname(file), groundTruthName(file));
  try {
    return (await stat(truth)).isFile() ? truth : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
