import type { Producer } from 'kafkajs';
import { topicName } from '../../shared/events/index.js';
import { createLogger } from '../../shared/logger/index.js';
import type { OperatorActions } from '../../shared/operations/operator-actions.js';
import { converterOperatorActions } from '../converter/operator-actions.js';
import { tripBuilderOperatorActions } from '../trip-builder/operator-actions.js';
import { composeTripBuilderStores } from '../trip-builder/compose.js';
import { createDiaryPublisher } from '../trip-builder/diary-publisher.js';
import type { Session } from './session.js';

/**
 * The operators' actions over a command's session, the same face the console's pages use. `producer` sends the
 * replayed entries and the rebuilt documents; the caller connects and closes it.
 */
export function sessionOperatorActions(
  s: Session,
  producer: Producer,
  { waitMs, component }: { waitMs?: number; component: string },
): OperatorActions {
  const topicPrefix = s.config.kafka.topicPrefix;
  return {
    ...converterOperatorActions({
      kafka: s.kafka,
      admin: s.admin,
      producer,
      codec: s.codec,
      topicPrefix,
      ...(waitMs !== undefined ? { waitMs } : {}),
    }),
    ...tripBuilderOperatorActions({
      ...composeTripBuilderStores(s.cql),
      pipelineLog: createLogger({ component, level: 'warn' }),
      now: () => Date.now() / 1000,
      publishDocument: createDiaryPublisher({ producer, codec: s.codec, topic: topicName(topicPrefix, 'diary') }),
    }),
  };
}
