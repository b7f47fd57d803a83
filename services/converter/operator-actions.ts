import type { Admin, Kafka } from 'kafkajs';
import type { KeyedProducer } from '../../shared/kafka/index.js';
import type { OperatorActions } from '../../shared/operations/operator-actions.js';
import type { AvroCodec } from '../../shared/schema-registry/index.js';
import { replayDeadLetterTopic } from './replay-dead-letter-topic.js';
import { replayDeadLetters } from './replay-dead-letters.js';

export interface ConverterOperatorDeps {
  kafka: Pick<Kafka, 'consumer'>;
  admin: Admin;
  producer: KeyedProducer;
  codec: AvroCodec;
  topicPrefix: string;
  /** Milliseconds a replay of the error table waits for the converter to catch up. @defaultValue 120000 */
  waitMs?: number;
}

/** The converter's part of the operators' actions: replaying dead letters, from the error table or the topic. */
export function converterOperatorActions(
  deps: ConverterOperatorDeps,
): Pick<OperatorActions, 'replayDeadLetters' | 'replayDeadLetterTopic'> {
  const { kafka, admin, producer, codec, topicPrefix, waitMs } = deps;
  return {
    replayDeadLetters: (errors, onProgress) =>
      replayDeadLetters({
        errors,
        producer,
        admin,
        codec,
        topicPrefix,
        ...(waitMs !== undefined ? { waitMs } : {}),
        ...(onProgress ? { onProgress } : {}),
      }),
    replayDeadLetterTopic: (options, onProgress) =>
      replayDeadLetterTopic(
        { kafka, admin, producer, codec, topicPrefix, ...(onProgress ? { onProgress } : {}) },
        options,
      ),
  };
}
