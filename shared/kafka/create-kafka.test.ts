import { describe, expect, it } from 'vitest';
import { kafkaSecurity } from './create-kafka.js';

describe('kafkaSecurity (config.kafka.sasl and tls as kafkajs takes them)', () => {
  it('When nothing is configured, then the client speaks plain TCP without a login', () => {
    expect(kafkaSecurity(null, null)).toEqual({});
  });

  it('When TLS is on, then the brokers are verified against Node.js’ authorities, or the configured CA alone', () => {
    expect(kafkaSecurity(null, { ca: undefined })).toEqual({ ssl: true });
    expect(kafkaSecurity(null, { ca: 'PEM' })).toEqual({ ssl: { ca: ['PEM'] } });
  });

  it.each(['plain', 'scram-sha-256', 'scram-sha-512'] as const)(
    'When SASL %s is configured, then kafkajs gets that mechanism and the credentials',
    (mechanism) => {
      expect(kafkaSecurity({ mechanism, username: 'u', password: 'p' }, { ca: undefined })).toEqual({
        ssl: true,
        sasl: { mechanism, username: 'u', password: 'p' },
      });
    },
  );
});
