import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { uuidFromExtendedJson } from '../domain/extended-json.js';
import { ImportFormatError } from '../domain/import-format-error.js';

/**
 * e-mission's `Stage_uuids` collection as mongoexport writes it (one `{"user_email": ..., "uuid": ...}` per line,
 * gzip accepted): the token each uuid logs in with, so an imported participant's phone keeps working unchanged.
 * One small document per user: read whole.
 */
export async function readUuidTokens(file: string): Promise<Map<string, string>> {
  const input = createReadStream(file);
  const lines = createInterface({
    input: file.endsWith('.gz') ? input.pipe(createGunzip()) : input,
    crlfDelay: Infinity,
  });
  const tokens = new Map<string, string>();
  let n = 0;
  for await (const line of lines) {
    n += 1;
    if (line.trim() === '') continue;
    let doc: { user_email?: unknown; uuid?: unknown };
    try {
      doc = JSON.parse(line) as typeof doc;
    } catch {
      throw new ImportFormatError(`${file}:${n} is not a JSON line of Stage_uuids`, { details: { file, line: n } });
    }
    const uuid = uuidFromExtendedJson(doc.uuid);
    if (!uuid || typeof doc.user_email !== 'string' || doc.user_email === '')
      throw new ImportFormatError(`${file}:${n} has no user_email and uuid`, { details: { file, line: n } });
    tokens.set(uuid, doc.user_email);
  }
  return tokens;
}
