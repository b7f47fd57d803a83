/**
 * The kinds of value a configuration key holds. A conf file is JSON, so its values are checked as JSON types (a port
 * written "8080" in quotes is refused); an environment variable is text, turned into the same JSON type first.
 */
import { z } from 'zod';

export interface ValueType<T> {
  /** What a value must be, in the words of docs/configuration.md and of the message refusing a bad value. */
  readonly expects: string;
  /** The values allowed, when they are a fixed few (docs and tests list them). */
  readonly choices?: readonly string[];
  /** Checks a value as JSON gives it, and turns it into what the code uses. */
  readonly schema: z.ZodType<T>;
  /** An environment variable's text as the JSON value it stands for. */
  readonly fromText: (text: string) => unknown;
}

const asIs = (text: string): unknown => text;
const asNumber = (text: string): unknown => Number(text);
const asBoolean = (text: string): unknown => ({ true: true, false: false })[text.trim().toLowerCase()] ?? text;

/** A comma-separated string (the environment's form, also accepted in files) or an array; blank items are dropped. */
const listSchema = <T>(item: z.ZodType<T, string>) =>
  z.preprocess(
    (value) => (typeof value === 'string' ? value.split(',') : value),
    z
      .array(z.string().trim())
      .transform((items) => items.filter(Boolean))
      .pipe(z.array(item)),
  );

export const text: ValueType<string> = { expects: 'text', schema: z.string(), fromText: asIs };

export const nonEmptyText: ValueType<string> = {
  expects: 'non-empty text',
  schema: z.string().trim().min(1),
  fromText: asIs,
};

/** Text whose empty value means "not set" (user names of servers that may ask for none). */
export const trimmedText: ValueType<string> = { expects: 'text', schema: z.string().trim(), fromText: asIs };

/** A base URL: trailing slashes go, so that paths can be appended with one. */
export const url: ValueType<string> = {
  expects: 'a URL',
  schema: z
    .string()
    .trim()
    .min(1)
    .transform((s) => s.replace(/\/+$/, '')),
  fromText: asIs,
};

export const port: ValueType<number> = {
  expects: 'a port number (0 to 65535)',
  schema: z.int().min(0).max(65535),
  fromText: asNumber,
};

export const positiveNumber: ValueType<number> = {
  expects: 'a number above 0',
  schema: z.number().positive(),
  fromText: asNumber,
};

export const positiveInteger: ValueType<number> = {
  expects: 'a whole number above 0',
  schema: z.int().positive(),
  fromText: asNumber,
};

export const nonNegativeNumber: ValueType<number> = {
  expects: 'a number of at least 0',
  schema: z.number().min(0),
  fromText: asNumber,
};

export const boolean: ValueType<boolean> = { expects: 'true or false', schema: z.boolean(), fromText: asBoolean };

/** A list that must name at least one item (addresses of servers). */
export const addressList: ValueType<string[]> = {
  expects: 'a list of host:port (JSON array or comma-separated)',
  schema: listSchema(z.string()).pipe(z.array(z.string()).min(1)),
  fromText: asIs,
};

export const optionalList: ValueType<string[]> = {
  expects: 'a list (JSON array or comma-separated)',
  schema: listSchema(z.string()),
  fromText: asIs,
};

/** A JSON array taken as written (tokens and secrets, which no one types into an environment variable). */
export const stringArray: ValueType<string[]> = {
  expects: 'a JSON array of text',
  schema: z.array(z.string()),
  fromText: asIs,
};

/**
 * One of `choices`. `normalise` says which spellings mean the same choice (case, a name e-mission uses for the same
 * thing); the message refusing a value quotes it as written.
 */
export function oneOf<const T extends string>(
  choices: readonly [T, ...T[]],
  normalise: (value: string) => string = (value) => value,
): ValueType<T> {
  return {
    expects: `one of ${choices.join(', ')}`,
    choices,
    schema: z.string().trim().transform(normalise).pipe(z.enum(choices)),
    fromText: asIs,
  };
}

/** A list whose items are each one of `choices`; empty is allowed. */
export function listOf<const T extends string>(choices: readonly [T, ...T[]]): ValueType<T[]> {
  return {
    expects: `one of ${choices.join(', ')}, or a list of them (JSON array or comma-separated)`,
    choices,
    schema: listSchema(z.enum(choices)),
    fromText: asIs,
  };
}

/** A CQL identifier: keyspace names are interpolated into DDL, so nothing else may reach it. */
export const cqlName: ValueType<string> = {
  expects: 'a lowercase letter, then up to 47 lowercase letters, digits or _',
  schema: z
    .string()
    .trim()
    .regex(/^[a-z][a-z0-9_]{0,47}$/),
  fromText: asIs,
};

/** A JSON object in files, its JSON text in the environment. */
export function jsonObject<T>(expects: string, schema: z.ZodType<T>): ValueType<T> {
  return {
    expects,
    schema,
    fromText: (text) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    },
  };
}
