import { parseArgs } from 'node:util';
import { deleteUser, operatorName } from './commands/delete-user.js';
import { errors } from './commands/errors.js';
import { exportFiles, exportOptions } from './commands/export.js';
import { compare } from './commands/compare.js';
import { fixUsercacheProcessing } from './commands/fix-usercache-processing.js';
import { importCommand } from './commands/import.js';
import { intake } from './commands/intake.js';
import { labels } from './commands/labels.js';
import { program } from './commands/program.js';
import { archiveProgram } from './commands/program-archive.js';
import { parseSince } from '../../shared/operations/operator-actions.js';
import { replayDeadLetters } from './commands/replay-dead-letters.js';
import { resetAll, resetOneUser } from './commands/reset-pipeline.js';
import { retention } from './commands/retention.js';
import { revokeTokens } from './commands/revoke-tokens.js';
import { transitImport } from './commands/transit-import.js';
import { user } from './commands/user.js';
import { fail, withSession } from './session.js';

/* The operator commands: this file parses the command line and hands each command to its module in commands/. */

const HELP = `itinera <command> [options]   (operator commands; exit 0 on success)

  intake <n>                        run n converter and n trip-builder workers until Ctrl-C; logs go to
                                    <conf/log/intake.conf dir>/intake_<i>.log.gz and intake_<i>-trips.log.gz
  fix-usercache-processing          replay the error timeseries through the converter; prints per key how
    [--wait-seconds 120]            many moved and how many still fail. Exit 3 while some still fail: fix the
                                    cause (upgrade the converter) and run it again. Writes no log file.
  replay-dead-letters               replay the dead letters of the error-timeseries topic from that UTC date or
    --since <YYYY-MM-DD|offset>     offset (on every partition) up to its end when the command starts; only
    [--key K] [--reason R]          those of metadata.key K and whose reason contains R (any case). What
    [--dry-run]                     converts now leaves the error table; --dry-run counts by key and reason.
                                    Moves no pipeline consumer group. Exit 3 when some matched letters hold
                                    no entry to replay
  errors [--samples 3]              count the error timeseries by metadata.key, with sample reasons
  reset-pipeline -a [-d YYYY-MM-DD] rewind the converter group to that date (UTC; default: the start) so the
    [--dry-run]                     normal process re-converts and rebuilds what follows; stop 'itinera intake' first
  reset-pipeline -u <user>          rebuild one user's trips, diary and metrics from that date (default: the
    [-d YYYY-MM-DD] [--dry-run]     start) now, from the raw timeseries; other users are not touched
  user <token or uuid>              what the timeseries holds for one user, by key
  delete-user <token or uuid>       delete the account and all its data from every table and the compacted
    [--yes] [--revoke-token]        topic; the token then gets 403. Without --yes, only says what it would do;
                                    --revoke-token also revokes the token, so it cannot register again
  revoke-tokens <token>...          revoke tokens for good: every gateway refuses them within 60 s, in every
    --reason <text>                 auth mode; their accounts and data stay until deleted. Audited
  labels <token or uuid>            a day's trips with their labels and notes (and their places'), and the
    [-d YYYY-MM-DD]                 inputs around it that label nothing, with the reason (default: the last day)
  export <format> (-u <user> | -a   one file per user and UTC day with data, DIR/<uuid>/<date>.<ext>; formats
    | --program <program>)          (--program: the participants whose tokens name the program);
    [--from YYYY-MM-DD]             ndjson (raw entries), geojson, gpx, trips-csv, sections-csv (composite trips).
    [--to YYYY-MM-DD] [--out DIR]   Default: the 30 days ending yesterday, DIR itinera-export. Days whose file
                                    exists are skipped, so a rerun resumes; delete a file to export its day again
    [--deidentify --secret S        pseudonyms (HMAC of the uuid under S) for ids and directories, and no points
     --radius 200]                  within that many metres of the user's two most frequent places
  retention [--days N] [--dry-run]  remove raw locations older than retention.raw_location_days (or N) days, of
                                    every user; trips, places and labels stay. Run daily; --dry-run only counts
  import <path>                     push an e-mission dump (a file or folder: JSON array export or mongoexport
    [--uuids Stage_uuids.ndjson]    NDJSON of Stage_timeseries, .gz too) through Kafka, the converter and the trip
                                    builder; users keep their uuid (and, with --uuids, their token; else the token
                                    is the uuid); a day file with <name>.ground_truth.json beside it becomes a user
                                    of its own, as in e-mission's tests. A rerun duplicates nothing
    [--program P [--config F]]      into program P (created from e-mission's config file F, or updated to it when
                                    its version is higher); mapped tokens must name P; users without one get a
                                    new random token of P. An account that exists under a dump's uuid with another
    [--merge]                       token is refused (a dump must not add to someone else's account) unless --merge
    [--uuid U] [--token T]          only the dump's user U (without --uuid: its first user), into the account of
                                    token T (created under U, or a new uuid, when T has none); entries without a
                                    user_id (a phone's own export) are imported only this way
  transit-import <file>             load a regional OpenStreetMap extract's (.osm.pbf or .osm) bus stops,
                                    stations and routes for mode inference (BUS, TRAIN… instead of CAR); trip
                                    builders see it within 10 minutes; rebuild old days with reset-pipeline
  program create <name> <file>      save a program's deployment configuration (e-mission's <name>.nrel-op.json:
    [--label-options <file>]        version, opcode, survey_info, …) as its first version; --label-options
    [--note <text>]                 inlines the label options so phones need nothing from elsewhere
  program update <name> <file>      save a new version: "version" must be above the current one; phones get it
    [--label-options <file>]        in the answer to their next put (gateways read changes every
    [--note <text>]                 webserver program_refresh_s, 5 s). A version that would lock participants out
    [--force]                       (a subgroup they are in removed, autogen turned off) is refused unless --force
  program show <name>               the current configuration, as phones get it
  program list | history <name>     every program's current version, or one program's versions and who saved them
  program archive <name> --out DIR  close the program, export its participants' raw entries and trips over all
    [--yes]                         their days to DIR, delete them, and write DIR/receipt-<time>.json (files with
                                    their SHA-256, the deleted uuids). Without --yes, only says what it would do
  compare <path>                    per user and day of a dump, e-mission's trips (its analysis/* trips, or the
                                    ground truth beside a file) beside Itinera's, matched within 60 s
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      all: { type: 'boolean', short: 'a' },
      date: { type: 'string', short: 'd' },
      user: { type: 'string', short: 'u' },
      'dry-run': { type: 'boolean' },
      yes: { type: 'boolean' },
      samples: { type: 'string' },
      'wait-seconds': { type: 'string' },
      since: { type: 'string' },
      key: { type: 'string' },
      reason: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      out: { type: 'string' },
      deidentify: { type: 'boolean' },
      secret: { type: 'string' },
      radius: { type: 'string' },
      days: { type: 'string' },
      uuids: { type: 'string' },
      program: { type: 'string' },
      config: { type: 'string' },
      merge: { type: 'boolean' },
      uuid: { type: 'string' },
      token: { type: 'string' },
      'label-options': { type: 'string' },
      note: { type: 'string' },
      force: { type: 'boolean' },
      'revoke-token': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (!command || command === '--help' || command === '-h' || values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const dryRun = values['dry-run'] === true;
  switch (command) {
    case 'intake':
      return intake(Number(positionals[0]));
    case 'fix-usercache-processing':
      return withSession((s) => fixUsercacheProcessing(s, Number(values['wait-seconds'] ?? 120)));
    case 'replay-dead-letters': {
      const since =
        parseSince(values.since ?? '') ?? fail('replay-dead-letters needs --since YYYY-MM-DD or --since <offset>');
      const args = {
        since,
        ...(values.key !== undefined ? { key: values.key } : {}),
        ...(values.reason !== undefined ? { reason: values.reason } : {}),
        dryRun,
      };
      return withSession((s) => replayDeadLetters(s, args));
    }
    case 'errors':
      return withSession((s) => errors(s, Number(values.samples ?? 3)));
    case 'reset-pipeline': {
      if (!values.all === !values.user)
        fail('reset-pipeline needs exactly one of -a (all users) or -u <token or uuid>');
      const date = values.date ?? (values.all ? '1970-01-01' : '');
      if (date !== '' && (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))))
        fail('reset-pipeline -d needs a date YYYY-MM-DD');
      const who = values.user;
      return withSession((s) => (who ? resetOneUser(s, who, date, dryRun) : resetAll(s, date, dryRun)));
    }
    case 'user': {
      const who = positionals[0] ?? fail('user needs a token or a uuid');
      return withSession((s) => user(s, who));
    }
    case 'delete-user': {
      const who = positionals[0] ?? fail('delete-user needs a token or a uuid');
      return withSession((s) => deleteUser(s, who, values.yes === true, values['revoke-token'] === true));
    }
    case 'revoke-tokens': {
      if (positionals.length === 0) fail('revoke-tokens needs one or more tokens');
      const reason = values.reason?.trim() || fail('revoke-tokens needs --reason <text>: it is kept with each token');
      return withSession((s) => revokeTokens(s, positionals, operatorName(), reason));
    }
    case 'retention':
      return withSession((s) => retention(s, values.days, dryRun));
    case 'import': {
      const path = positionals[0] ?? fail('import needs the path of a dump file or folder');
      if (values.config !== undefined && values.program === undefined) fail('import --config needs --program');
      const into = values.program === undefined ? undefined : { program: values.program, configFile: values.config };
      const oneUser =
        values.uuid === undefined && values.token === undefined
          ? undefined
          : {
              ...(values.uuid !== undefined ? { uuid: values.uuid } : {}),
              ...(values.token !== undefined ? { token: values.token } : {}),
            };
      return withSession((s) => importCommand(s, path, values.uuids, into, values.merge === true, oneUser));
    }
    case 'transit-import': {
      const path = positionals[0] ?? fail('transit-import needs the path of an .osm.pbf or .osm file');
      return withSession((s) => transitImport(s, path));
    }
    case 'compare': {
      const path = positionals[0] ?? fail('compare needs the path of a dump file or folder');
      return withSession((s) => compare(s, path));
    }
    case 'program': {
      const [action = '', name, file] = positionals;
      if (action === 'archive') {
        const program = name ?? fail('program archive needs the program');
        const out = values.out ?? fail('program archive needs --out DIR');
        return withSession((s) => archiveProgram(s, program, out, values.yes === true));
      }
      const args = {
        action,
        program: name,
        file,
        labelOptions: values['label-options'],
        note: values.note,
        force: values.force === true,
      };
      return withSession((s) => program(s, args));
    }
    case 'labels': {
      const who = positionals[0] ?? fail('labels needs a token or a uuid');
      return withSession((s) => labels(s, who, values.date));
    }
    case 'export': {
      const options = exportOptions(positionals[0], values);
      return withSession((s) => exportFiles(s, options));
    }
    default:
      process.stderr.write(HELP);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`itinera: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
