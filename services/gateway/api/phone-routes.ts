import { customLabelsApi } from './custom-labels-api.js';
import { diaryApi } from './diary-api.js';
import { exportApi } from './export-api.js';
import { metricsApi } from './metrics-api.js';
import { monitoringApi } from './monitoring-api.js';
import type { PhoneRoute } from './phone-route.js';
import { profileApi } from './profile-api.js';
import { programsApi } from './programs-api.js';
import { publicApi } from './public-api.js';
import { usercacheApi } from './usercache-api.js';

/**
 * Every endpoint the gateway serves, declared once. /openapi.json is generated from this list, and openapi.test.ts
 * fails when a route is registered in the gateway's routers without being declared here, or the other way round.
 */
export const PHONE_ROUTES: readonly PhoneRoute[] = [
  ...profileApi,
  ...usercacheApi,
  ...diaryApi,
  ...metricsApi,
  ...customLabelsApi,
  ...exportApi,
  ...programsApi,
  ...publicApi,
  ...monitoringApi,
];
