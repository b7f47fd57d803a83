export { createConsoleAuth, type ConsoleAuth } from './create-console-auth.js';
export { CSRF_HEADER, type ConsoleAuthState } from './gate.js';
export type { ConsoleOperator, ConsoleRole } from './session.js';
