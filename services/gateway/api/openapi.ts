import type { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiContentObject,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { openApiPath, type PhoneRoute, PHONE_TAGS } from './phone-route.js';
import { ErrorAnswer, json, RetryAfter } from './phone-schemas.js';

const BUG = 'A bug: the answer carries a `request_id`, and the stack is printed with it';

/** Refusals a client may retry: they say when (429: this client's allowance; 503: the gateway or a server). */
const RETRIABLE: ReadonlySet<number> = new Set([429, 503]);

function mediaTypes(content: Readonly<Record<string, z.ZodType>>): ZodOpenApiContentObject {
  return Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }]));
}

function responses(route: PhoneRoute): ZodOpenApiResponsesObject {
  const out: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(route.answers)) {
    out[status] = {
      description: answer.description,
      ...(answer.content ? { content: mediaTypes(answer.content) } : {}),
      ...(answer.headers ? { headers: answer.headers } : {}),
    };
  }
  const refusals = Object.entries(route.refusals) as [string, string][];
  for (const [status, why] of [...refusals, ['500', BUG]] as const) {
    // An answer of the route's own at that status (/ready's 503) is what the route documents.
    if (out[status]) continue;
    out[status] = {
      description: why,
      content: mediaTypes(json(ErrorAnswer)),
      ...(RETRIABLE.has(Number(status)) ? { headers: RetryAfter } : {}),
    };
  }
  return out as ZodOpenApiResponsesObject;
}

/** `post /usercache/put` → `post_usercache_put`: stable, unique, and readable in generated clients. */
function operationId(route: PhoneRoute): string {
  return `${route.method}_${route.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`;
}

function operation(route: PhoneRoute): ZodOpenApiOperationObject {
  const notes = [
    route.description,
    route.validatedBy ? `The body is checked by ${route.validatedBy}; this schema describes what it accepts.` : '',
  ].filter(Boolean);
  return {
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    ...(notes.length > 0 ? { description: notes.join('\n\n') } : {}),
    ...(route.params || route.query
      ? {
          requestParams: {
            ...(route.params ? { path: route.params } : {}),
            ...(route.query ? { query: route.query } : {}),
          },
        }
      : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: route.body,
                ...(route.example === undefined ? {} : { example: route.example }),
              },
            },
          },
        }
      : {}),
    responses: responses(route),
  };
}

const DESCRIPTION = `The API the e-mission phone app (and OpenPATH) calls, as Itinera serves it.

Every phone call is a POST of a JSON object (Content-Type application/json) whose \`user\` field holds the participant's token: there is no auth header. A 403 tells the app its token names no account, and it registers again (/profile/create).

Phone calls' paths may carry a prefix (\`/api/usercache/put\`) or doubled slashes; both reach the route. An unknown path answers 404 and a known path called with another method 405 with an \`Allow\` header, both with the error answer.`;

/** The OpenAPI 3.1 document of the gateway, generated from the routes' declarations (phone-routes.ts). */
export function phoneOpenApi(routes: readonly PhoneRoute[], version: string): ReturnType<typeof createDocument> {
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  // A route declared twice would keep its last declaration: openapi.test.ts refuses the list then.
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route);
  }
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'Itinera phone API', version, description: DESCRIPTION },
    tags: Object.entries(PHONE_TAGS).map(([name, description]) => ({ name, description })),
    paths: paths as ZodOpenApiPathsObject,
  });
}
