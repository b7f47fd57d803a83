import type { Middleware } from 'koa';
import type { GatewayState } from '../gateway-state.js';
import { putAdmission, type PutAdmissionOptions } from './put-admission.js';
import { parsePutBody, readPutBody } from './put-body.js';

/**
 * What a put goes through between its body's bounds (middleware/body-limits.ts) and its route, in this order:
 * admission on its declared length, then its bytes, then its own JSON parse. The order is the point (a put read
 * before admission holds its body while it waits), so it is declared here once, for the app and its tests.
 */
export function putPath(
  admission: PutAdmissionOptions,
  { slowUploadMs }: { slowUploadMs?: number } = {},
): Middleware<GatewayState>[] {
  return [putAdmission(admission), readPutBody({ slowUploadMs }), parsePutBody()];
}
