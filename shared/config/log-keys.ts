/** Where the spec logs go and how they rotate: `conf/log/webserver.conf` and `conf/log/intake.conf`. */
import { key } from './config-declaration.js';
import { MIB } from './units.js';
import * as types from './value-types.js';

const WEB = 'log/webserver.conf';
const INTAKE = 'log/intake.conf';

export const logKeys = {
  level: key({
    file: WEB,
    path: 'level',
    env: 'ITINERA_LOG_LEVEL',
    type: types.oneOf(['error', 'warn', 'info', 'debug']),
    default: 'debug',
    doc: 'Lowest level the gateway writes to `webserver.log`.',
  }),
  web: {
    dir: key({
      file: WEB,
      path: 'dir',
      env: 'ITINERA_LOG_DIR',
      type: types.nonEmptyText,
      default: '/var/tmp',
      doc: 'Folder of `webserver.log` and `webserver-errors.log`; `-` is standard output, for containers.',
    }),
    maxBytes: key({
      file: WEB,
      path: 'max_size_mb',
      env: 'ITINERA_LOG_MAX_MB',
      type: types.positiveNumber,
      default: 1024,
      unit: 'MiB',
      scale: MIB,
      doc: 'Size at which `webserver.log` (and `webserver-errors.log`) is rotated.',
    }),
    maxFiles: key({
      file: WEB,
      path: 'max_files',
      env: 'ITINERA_LOG_MAX_FILES',
      type: types.positiveInteger,
      default: 3,
      unit: 'files',
      doc: 'Files kept of each, the current one included (`webserver.log`, `webserver1.log` newest rotated, …).',
    }),
  },
  intake: {
    dir: key({
      file: INTAKE,
      path: 'dir',
      env: 'ITINERA_INTAKE_LOG_DIR',
      type: types.nonEmptyText,
      default: '/var/tmp',
      doc: 'Folder of the pipeline’s logs (read with `zcat`); `-` is standard output.',
    }),
    maxBytes: key({
      file: INTAKE,
      path: 'max_size_mb',
      env: 'ITINERA_INTAKE_LOG_MAX_MB',
      type: types.positiveNumber,
      default: 100,
      unit: 'MiB',
      scale: MIB,
      doc: 'Compressed size at which a worker’s log is rotated.',
    }),
    maxFiles: key({
      file: INTAKE,
      path: 'max_files',
      env: 'ITINERA_INTAKE_LOG_MAX_FILES',
      type: types.positiveInteger,
      default: 5,
      unit: 'files',
      doc: 'Files kept per worker, the current one included (`intake_0.log.gz`, `intake_0.1.log.gz` newest rotated, …).',
    }),
  },
};
