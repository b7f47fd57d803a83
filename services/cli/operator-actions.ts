import { topicName } from '../../shared/events/index.js';
import type { KeyedProducer } from '../../shared/kafka/index.js';
import { createLogger } from '../../shared/logger/index.js';
import type { OperatorActions } from '../../shared/operations/operator-actions.js';
import { converterOperatorActions } from '../converter/operator-actions.js';
import { tripBuilderOperatorActions } from '../trip-builder/operator-actions.js';
import { composeTripBuilderStores } from '../trip-builder/compose.js';
import { createDiaryPublisher } from '../trip-builder/diary-publisher.js';
import type { Session } from './session.js';

/**
 * The operators' actions over a command's session, the same face the console's pages use. `producer` sends the
 * replayed entries and the rebuilt documents (sessionProducer); the caller closes it.
 */
export function sessionOperatorActions(
  s: Session,
  producer: KeyedProducer,
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
