/**
 * The error-timeseries topic's record (schemas/avro/dead-letter.avsc), also the row of the error table: an entry
 * that could not be processed, with why and where it came from. Produced by the converter (entries it cannot
 * convert or store) and the trip builder (users whose rebuild failed, TRIP_BUILDER_ERROR_KEY). No service here
 * consumes the topic: it is a feed for an operator's tools; `npx itinera errors` and fix-usercache-processing read
 * the table.
 */
export interface DeadLetter {
  user_id: string;
  key: string;
  type: string;
  write_ts: number;
  reason: string;
  source_topic: string;
  source_partition: number;
  source_offset: number;
  failed_ts: number;
  metadata_json: string;
  data_json: string;
}

/** metadata.key of a dead letter whose record could not even be decoded: there is no entry, only its bytes. */
export const UNDECODABLE_KEY = '(undecodable)';

/**
 * metadata.key of the rows that record a user whose trip rebuild failed (not an entry: nothing to replay through
 * the converter; the user is rebuilt by its next observation or `itinera reset-pipeline -u`).
 */
export const TRIP_BUILDER_ERROR_KEY = 'pipeline/trip-builder';
