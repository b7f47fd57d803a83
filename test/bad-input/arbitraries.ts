import fc from 'fast-check';

/**
 * Generators of hostile, broken and odd requests, shared by the bad-input suite (`npm test`) and the soak
 * (`npm run soak`): what any client on the internet may send the phone API.
 */

export const PATHS = [
  '/profile/create',
  '/profile/get',
  '/profile/update',
  '/usercache/put',
  '/usercache/putone',
  '/usercache/get',
  '/timeline/getTrips/2016-06-15',
  '/timeline/getTrips/2016-13-45',
  '/timeline/getTrips/yesterday',
  '/pipeline/get_complete_ts',
  '/pipeline/get_range_ts',
  '/datastreams/find_entries/timestamp',
  '/datastreams/find_entries/local_date',
  '/result/metrics/timestamp',
  '/result/metrics/local_date',
  '/result/metrics/yyyy_mm_dd',
  '//usercache//put',
  '/usercache/put/../get',
  '/no/such/endpoint',
];

export const hostileStrings = fc.constantFrom(
  "'; DROP TABLE users; --",
  '" OR 1=1 --',
  '{"$gt": ""}',
  '../../etc/passwd',
  '\u0000',
  '\ud800',
  'ユーザー@例え.jp',
  '😀'.repeat(50),
  '<script>alert(1)</script>',
  'a'.repeat(600),
  '',
  ' ',
);

export const token = fc.oneof(
  fc.constantFrom('alice@example.org', 'bob@example.org', 'nobody@example.org'),
  hostileStrings,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);

export const oddNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -1, -1e300, 1e300, 1e11, 1440688707, 1440688707867, 1e16, Number.MAX_SAFE_INTEGER, 5e-324),
);

export const oddValue = fc.oneof(oddNumber, hostileStrings, fc.boolean(), fc.constant(null), fc.constant([]));

/** Entries whose envelope is often valid and whose payload is anything: what reaches the converter. */
export const entry = fc.oneof(
  fc.record({
    metadata: fc.record(
      {
        key: fc.oneof(
          fc.constantFrom(
            'background/location',
            'background/motion_activity',
            'statemachine/transition',
            'background/battery',
            'config/consent',
            'manual/mode_confirm',
          ),
          hostileStrings,
          oddValue,
        ),
        write_ts: fc.oneof(oddNumber, oddValue),
        type: fc.oneof(fc.constantFrom('sensor-data', 'message', 'rw-document', 'document'), oddValue),
        platform: fc.oneof(fc.constantFrom('android', 'ios'), oddValue),
        time_zone: fc.oneof(fc.constantFrom('America/Denver', 'Europe/Paris'), hostileStrings),
      },
      { requiredKeys: ['key', 'write_ts'] },
    ),
    data: fc.oneof(
      fc.dictionary(
        fc.constantFrom('ts', 'latitude', 'longitude', 'accuracy', 'agb', 'agc', 'transition', 'battery_level_pct'),
        oddValue,
      ),
      oddValue,
    ),
  }),
  oddValue,
  fc.anything({ maxDepth: 2 }),
);

/** Entries with a valid envelope and any payload at all: the gateway must take them, the converter judge them. */
export const wellFormedEntry = fc.record({
  metadata: fc.record({
    key: fc.constantFrom(
      'background/location',
      'background/filtered_location',
      'background/motion_activity',
      'statemachine/transition',
      'background/battery',
      'config/consent',
      'manual/mode_confirm',
      'stats/client_error',
    ),
    // Seconds and milliseconds, including far past and far future the phone clock may report.
    write_ts: fc.oneof(
      fc.double({ min: 1, max: 9.9e9, noNaN: true }),
      fc.integer({ min: 1_000_000_000_000, max: 2_000_000_000_000 }),
    ),
    type: fc.constantFrom('sensor-data', 'message', 'rw-document'),
    platform: fc.oneof(fc.constantFrom('android', 'ios'), oddValue),
    time_zone: fc.oneof(fc.constantFrom('America/Denver', 'Europe/Paris', 'Asia/Kolkata'), hostileStrings),
  }),
  data: fc.dictionary(
    fc.constantFrom(
      'ts',
      'latitude',
      'longitude',
      'accuracy',
      'agb',
      'agc',
      'transition',
      'currState',
      'battery_level_pct',
      'label',
    ),
    fc.oneof(oddValue, fc.string({ unit: 'binary', maxLength: 20 }), fc.object({ maxDepth: 1 })),
  ),
});

export const jsonBody = fc.record(
  {
    user: token,
    phone_to_server: fc.oneof(fc.array(entry, { maxLength: 6 }), oddValue),
    the_entry: entry,
    key_list: fc.oneof(fc.array(fc.oneof(hostileStrings, fc.constant('background/location'))), oddValue),
    start_time: oddValue,
    end_time: oddValue,
    max_entries: oddValue,
    trunc_method: fc.oneof(fc.constantFrom('first', 'last', 'sample'), oddValue),
    freq: fc.oneof(fc.constantFrom('D', 'M', 'DAILY', 'YEARLY'), oddValue),
    metric_list: fc.oneof(fc.array(fc.constantFrom('count', 'distance', 'duration', 'nonsense')), oddValue),
    update_doc: fc.oneof(fc.object({ maxDepth: 1 }), oddValue),
  },
  { requiredKeys: [] },
);

/** A request as sent on the wire: a body text, and a content type that is sometimes wrong. */
export const request = fc.record({
  path: fc.constantFrom(...PATHS),
  body: fc.oneof(
    jsonBody.map((b) => JSON.stringify(b)),
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.constantFrom(
      '{"user": "alice@example.org", "phone_to_server": [{"metadata": {"key": "k", "write_ts": NaN}, "data": {}}]}',
      '{"user": "alice@example.org", "phone_to_server": [',
      '[{"user": "alice@example.org"}]',
      'null',
      '"just a string"',
      '{"user": "alice@example.org", "user": "bob@example.org"}',
      '{"user": "alice@example.org", "__proto__": {"admin": true}}',
    ),
  ),
  // Mostly JSON, as the app sends, so that well-formed bodies reach the routes; now and then what a web page can send
  // cross-site without a preflight (text/plain, a form, multipart), each a 415.
  contentType: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('application/json; charset=UTF-8', 'application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'),
    },
  ),
});

/** Methods a scanner or a confused client sends; node's client sends any of them, unlike fetch. */
export const method = fc.oneof(
  { weight: 12, arbitrary: fc.constant('POST') },
  { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') },
  { weight: 1, arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'COPY', 'PURGE') },
);

/** Calendar days, valid and not: month 13, February 31, year 0, five-digit years, and plain junk. */
export const dayPath = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 10_999 }), fc.integer({ min: 0, max: 19 }), fc.integer({ min: 0, max: 39 }))
    .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
  fc.constantFrom('2003-02-31', '2016-02-29', '2015-02-29', '0000-00-00', '9999-12-31', 'today', '%00', '..'),
);

/** Keys that live on Object.prototype: a lookup that is not own-property-safe turns them into a 500. */
export const prototypeKey = fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf');

/** A JSON text nested `levels` deep inside an otherwise plausible put. */
export const deepPut = fc
  .tuple(fc.integer({ min: 30, max: 3000 }), fc.constantFrom('alice@example.org', 'bob@example.org'))
  .map(([levels, user]) => {
    const deep = '{"a":'.repeat(levels) + '[]' + '}'.repeat(levels);
    return `{"user":"${user}","phone_to_server":[{"metadata":{"key":"background/location","type":"sensor-data","write_ts":1466000000},"data":${deep}}]}`;
  });

const absurdTime = fc.oneof(
  fc.constantFrom(-1, 0, 1e10, 1e10 + 1, 1e12, 1e300, -1e300, Number.MAX_SAFE_INTEGER),
  fc.double({ noNaN: true }),
);

const localDateValue = fc.record(
  {
    year: fc.oneof(fc.integer({ min: -5, max: 100_000 }), fc.constant(2016)),
    month: fc.oneof(fc.integer({ min: -1, max: 14 }), prototypeKey),
    day: fc.oneof(fc.integer({ min: -1, max: 33 }), fc.constant(1.5)),
  },
  { requiredKeys: ['year'] },
);

/** Bodies aimed at the read endpoints' limits: absurd ranges, prototype keys, repeated or unknown metrics. */
export const readBody = fc.record(
  {
    user: fc.oneof(fc.constantFrom('alice@example.org', 'bob@example.org'), token),
    key_list: fc.oneof(
      fc.array(fc.oneof(prototypeKey, fc.constantFrom('background/location', 'analysis/composite_trip'))),
      fc.constant(null),
    ),
    key_time: fc.oneof(fc.constantFrom('metadata.write_ts', 'data.ts', 'data.start_ts'), prototypeKey),
    start_time: fc.oneof(absurdTime, localDateValue),
    end_time: fc.oneof(absurdTime, localDateValue),
    freq: fc.oneof(fc.constantFrom('D', 'M', 'DAILY', 'MONTHLY', 'YEARLY'), prototypeKey),
    metric_list: fc.oneof(
      fc.array(fc.oneof(fc.constantFrom('count', 'distance', 'duration', 'mean_speed'), prototypeKey), {
        maxLength: 300,
      }),
      fc.dictionary(prototypeKey, fc.array(fc.constantFrom('mode_confirm', 'purpose_confirm'))),
    ),
    is_return_aggregate: fc.boolean(),
    max_entries: fc.oneof(fc.integer(), fc.constant(1e12)),
  },
  { requiredKeys: [] },
);

/** One request of the storm: any method, any route, any body, and the content type usually right. */
export const stormRequest = fc.oneof(
  { weight: 4, arbitrary: request.map((r) => ({ ...r, method: 'POST' })) },
  {
    weight: 3,
    arbitrary: fc.record({
      method,
      path: fc.oneof(
        fc.constantFrom(...PATHS),
        dayPath.map((d) => `/timeline/getTrips/${d}`),
        fc.constantFrom(
          '/datastreams/find_entries/timestamp',
          '/result/metrics/timestamp',
          '/result/metrics/local_date',
          '/result/metrics/yyyy_mm_dd',
        ),
      ),
      body: readBody.map((b) => JSON.stringify(b)),
      contentType: fc.constant('application/json'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      method: fc.constant('POST'),
      path: fc.constantFrom('/usercache/put', '/usercache/putone'),
      body: deepPut,
      contentType: fc.constant('application/json'),
    }),
  },
);
