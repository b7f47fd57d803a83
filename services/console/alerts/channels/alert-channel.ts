import type { AlertMessage } from '../domain/alert-messages.js';
import type { ChannelName } from '../domain/delivery.js';

/** A way alerts go out. A send that fails throws; the alert stays due and is sent again at the next evaluation. */
export interface AlertChannel {
  name: ChannelName;
  /** Whether the channel carries a program's alerts (e-mail: someone receives them). */
  carries(program: string | null): boolean;
  send(message: AlertMessage): Promise<void>;
  close(): void;
}
