import { createTransport } from 'nodemailer';
import type { EmailSettings } from '../alert-settings.js';
import type { AlertChannel } from './alert-channel.js';

/** How long the SMTP server may take at each step: an evaluation waits for it. */
const TIMEOUT_MS = 15_000;

/** Who receives a program's alerts: everyone's recipients and the program's own. */
export const recipientsOf = (settings: EmailSettings, program: string | null): string[] => [
  ...new Set([...settings.to, ...(program === null ? [] : (settings.toByProgram[program] ?? []))]),
];

/**
 * Mails each message over SMTP, plain text, to the program's recipients. `starttls` requires the upgrade (a server
 * that does not offer it fails the send rather than carry the login in the clear); the certificate is always checked.
 */
export function createEmailChannel(settings: EmailSettings): AlertChannel {
  const transport = createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.security === 'tls',
    requireTLS: settings.security === 'starttls',
    ignoreTLS: settings.security === 'none',
    ...(settings.login ? { auth: settings.login } : {}),
    ...(settings.ca ? { tls: { ca: settings.ca } } : {}),
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  return {
    name: 'email',
    carries: (program) => recipientsOf(settings, program).length > 0,
    async send(message) {
      await transport.sendMail({
        from: settings.from,
        to: recipientsOf(settings, message.program),
        subject: message.subject,
        text: message.lines.join('\n'),
      });
    },
    close: () => transport.close(),
  };
}
