import { NotFoundError } from '../../shared/errors/index.js';
import type { BoundedExports } from './bounded-exports.js';
import { attachmentFileName, EXPORT_FORMATS, type ExportFormat, isExportFormat } from './domain/export-formats.js';
import { type ExportRange, parseExportRange, type RangeFields, utcDate } from './domain/export-range.js';
import type { UserExport } from './export-user.js';

/** What a participant's `POST /export/<format>` asks for, checked: a format, UTC days, the file it is saved as. */
export interface PhoneExportAsk {
  readonly format: ExportFormat;
  readonly range: ExportRange;
  /** `itinera-<format>-<first day>-<last day>.<ext>`: closed-list parts only, safe in a Content-Disposition. */
  readonly fileName: string;
}

/** The exports the gateway offers participants: the request's language is the export's, the HTTP the gateway's. */
export interface PhoneExports {
  /**
   * The request checked before anyone is identified, so that a bad one changes nothing: an unknown format is a
   * NotFoundError naming the formats, a bad range a ValidationError naming the field (export-range.ts).
   */
  ask(format: string, body: RangeFields, nowMs: number): PhoneExportAsk;
  /** The user's export once a slot is free (bounded-exports.ts: one per user, a few at once, then 503). */
  open(userId: string, ask: PhoneExportAsk): Promise<UserExport>;
}

const FORMAT_LIST = Object.keys(EXPORT_FORMATS).join(', ');

export function createPhoneExports(bounded: BoundedExports): PhoneExports {
  return {
    ask(format, body, nowMs) {
      if (!isExportFormat(format))
        throw new NotFoundError(`no export as ${format.slice(0, 40)}; use one of ${FORMAT_LIST}`);
      const range = parseExportRange(body, utcDate(nowMs));
      return { format, range, fileName: attachmentFileName(format, range.fromDate, range.toDate) };
    },
    open: (userId, { format, range }) => bounded.open({ format, userId, range }),
  };
}
