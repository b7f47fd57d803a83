import { parseArgs } from 'node:util';
import { errors } from './commands/errors.js';
import { fixUsercacheProcessing } from './commands/fix-usercache-processing.js';
import { intake } from './commands/intake.js';
import { labels } from './commands/labels.js';
import { resetAll, resetOneUser } from './commands/reset-pipeline.js';
import { user } from './commands/user.js';
import { fail, withSession } from './session.js';

/* The operator commands: this file parses the command line and hands each command to its module in commands/. */

const HELP = `itinera <command> [options]   (operator commands; exit 0 on success)

  intake <n>                        run n converter and n trip-builder workers until Ctrl-C; logs go to
                                    <conf/log/intake.conf dir>/intake_<i>.log.gz and intake_<i>-trips.log.gz
  fix-usercache-processing          replay the error timeseries through the converter; prints per key how
    [--wait-seconds 120]            many moved and how many still fail. Exit 3 while some still fail: fix the
                                    cause (upgrade the converter) and run it again. Writes no log file.
  errors [--samples 3]              count the error timeseries by metadata.key, with sample reasons
  reset-pipeline -a [-d YYYY-MM-DD] rewind the converter group to that date (UTC; default: the start) so the
    [--dry-run]                     normal process re-converts and rebuilds what follows; stop 'itinera intake' first
  reset-pipeline -u <user>          rebuild one user's trips, diary and metrics from that date (default: the
    [-d YYYY-MM-DD] [--dry-run]     start) now, from the raw timeseries; other users are not touched
  user <token or uuid>              what the timeseries holds for one user, by key
  labels <token or uuid>            a day's trips with their labels and notes (and their places'), and the
    [-d YYYY-MM-DD]                 inputs around it that label nothing, with the reason (default: the last day)
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
      samples: { type: 'string' },
      'wait-seconds': { type: 'string' },
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
    case 'labels': {
      const who = positionals[0] ?? fail('labels needs a token or a uuid');
      return withSession((s) => labels(s, who, values.date));
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
