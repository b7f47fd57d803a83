/** The operators' console: `conf/net/console.conf`; see the README's "Console". */
import { key } from './config-declaration.js';
import { programLists } from './program-lists.js';
import * as types from './value-types.js';

const FILE = 'net/console.conf';

const oidcKeys = {
  issuer: key({
    file: FILE,
    path: 'console.oidc.issuer',
    env: 'CONSOLE_OIDC_ISSUER',
    type: types.nonEmptyText,
    default: 'http://127.0.0.1:8089',
    doc: 'OIDC provider operators log in with.',
  }),
  clientId: key({
    file: FILE,
    path: 'console.oidc.client_id',
    env: 'CONSOLE_OIDC_CLIENT_ID',
    type: types.nonEmptyText,
    default: 'itinera-console',
    doc: 'The console’s client at the provider.',
  }),
  clientSecret: key({
    file: FILE,
    path: 'console.oidc.client_secret',
    env: 'CONSOLE_OIDC_CLIENT_SECRET',
    type: types.nonEmptyText,
    default: 'itinera-development-only-secret',
    secret: true,
    doc: 'The client’s secret; the default is the development provider’s, refused off loopback.',
  }),
  // Refused unless issuer and console are loopback (services/console/dev-oidc/).
  devProvider: key({
    file: FILE,
    path: 'console.oidc.dev_provider',
    env: 'CONSOLE_OIDC_DEV_PROVIDER',
    type: types.boolean,
    default: false,
    doc: 'Start the project’s local OIDC provider on the issuer’s port (development and tests only).',
  }),
  emailVerified: key({
    file: FILE,
    path: 'console.oidc.email_verified',
    env: 'CONSOLE_OIDC_EMAIL_VERIFIED',
    type: types.oneOf(['required', 'when_sent']),
    default: 'required',
    doc: 'E-mails count for a role only if verified (`required`), or also when the provider never says (`when_sent`).',
  }),
  readerEmails: key({
    file: FILE,
    path: 'console.oidc.reader_emails',
    env: 'CONSOLE_OIDC_READER_EMAILS',
    type: types.optionalList,
    default: [],
    doc: 'E-mails allowed in read-only; `*` allows every e-mail the provider vouches for.',
  }),
  operatorEmails: key({
    file: FILE,
    path: 'console.oidc.operator_emails',
    env: 'CONSOLE_OIDC_OPERATOR_EMAILS',
    type: types.optionalList,
    default: [],
    doc: 'E-mails allowed to act (replay, reset, tokens).',
  }),
  groupClaim: key({
    file: FILE,
    path: 'console.oidc.group_claim',
    env: 'CONSOLE_OIDC_GROUP_CLAIM',
    type: types.nonEmptyText,
    default: 'groups',
    doc: 'ID-token claim holding the user’s groups (Keycloak, Entra ID, Okta: `groups`).',
  }),
  readerGroups: key({
    file: FILE,
    path: 'console.oidc.reader_groups',
    env: 'CONSOLE_OIDC_READER_GROUPS',
    type: types.optionalList,
    default: [],
    doc: 'Groups allowed in read-only.',
  }),
  operatorGroups: key({
    file: FILE,
    path: 'console.oidc.operator_groups',
    env: 'CONSOLE_OIDC_OPERATOR_GROUPS',
    type: types.optionalList,
    default: [],
    doc: 'Groups allowed to act.',
  }),
  // A program's admin sees and acts on that program only, even where the reader lists would let them read all.
  programAdminEmails: key({
    file: FILE,
    path: 'console.oidc.program_admin_emails',
    env: 'CONSOLE_OIDC_PROGRAM_ADMIN_EMAILS',
    type: programLists,
    default: {},
    doc: 'Programs’ admins by verified e-mail, program → e-mails (the same JSON object in the environment).',
  }),
  programAdminGroups: key({
    file: FILE,
    path: 'console.oidc.program_admin_groups',
    env: 'CONSOLE_OIDC_PROGRAM_ADMIN_GROUPS',
    type: programLists,
    default: {},
    doc: 'Programs’ admins by group (in `group_claim`), program → groups.',
  }),
};

export const consoleKeys = {
  host: key({
    file: FILE,
    path: 'console.host',
    env: 'CONSOLE_HOST',
    type: types.nonEmptyText,
    default: '127.0.0.1',
    doc: 'Interface the console listens on: it is for operators, not for the phones’ network.',
  }),
  port: key({
    file: FILE,
    path: 'console.port',
    env: 'CONSOLE_PORT',
    type: types.port,
    default: 8090,
    doc: 'Port the console listens on.',
  }),
  // After host and port: its default is made of them.
  publicUrl: key({
    file: FILE,
    path: 'console.public_url',
    env: 'CONSOLE_PUBLIC_URL',
    type: types.url,
    default: {
      computed: (console) => `http://${String(console['host'])}:${String(console['port'])}`,
      doc: 'http://<host>:<port>',
    },
    doc: 'URL operators’ browsers use; the OIDC redirect is `<public_url>/admin/callback`.',
  }),
  // None configured: a random key is made at start, so sessions end when the console restarts.
  sessionKeys: key({
    file: FILE,
    path: 'console.session_keys',
    env: 'CONSOLE_SESSION_KEYS',
    type: types.optionalList,
    default: [],
    secret: true,
    doc: 'Keys signing the session cookie, newest first (rotate by prepending); none: a random one per start.',
  }),
  tileUrl: key({
    file: FILE,
    path: 'console.tile_url',
    env: 'CONSOLE_TILE_URL',
    type: types.text,
    default: '',
    doc: 'Leaflet tile URL template for the day map; empty: no base map (offline).',
  }),
  participantsRefreshSeconds: key({
    file: FILE,
    path: 'console.participants_refresh_s',
    env: 'CONSOLE_PARTICIPANTS_REFRESH_S',
    type: types.positiveNumber,
    default: 30,
    unit: 's',
    doc: 'Time between refreshes of the in-memory participant index.',
  }),
  stalledMinutes: key({
    file: FILE,
    path: 'console.stalled_minutes',
    env: 'CONSOLE_STALLED_MINUTES',
    type: types.positiveNumber,
    default: 5,
    unit: 'minutes',
    doc: 'A consumer group with lag and no commit for this long is shown as stalled.',
  }),
  behindHours: key({
    file: FILE,
    path: 'console.behind_hours',
    env: 'CONSOLE_BEHIND_HOURS',
    type: types.positiveNumber,
    default: 6,
    unit: 'hours',
    doc: 'A user whose trip builder resume point is this far behind their last push is listed.',
  }),
  oidc: oidcKeys,
};
