/**
 * The building blocks of the configuration's declaration (config-keys.ts): a key says once where it is written (conf
 * file and path, environment variable), what it holds and what it is when nothing sets it. The declaration is a tree in
 * the shape of the `Config` the services get, so the loader, the `Config` type, docs/configuration.md and the tests are
 * all derived from the one place.
 */
import type { ConfFile } from './conf-files.js';
import type { ValueType } from './value-types.js';

/** A default that follows from keys declared before it in the same section (a URL from a host and port). */
export interface ComputedDefault<T> {
  readonly computed: (section: Readonly<Record<string, unknown>>) => T;
  /** How docs/configuration.md states it. */
  readonly doc: string;
}

/** `T` includes `undefined` when nothing sets the key and it has no default. */
export interface ConfKey<T> {
  readonly kind: 'key';
  readonly file: ConfFile;
  /** Where in the file's JSON, dotted (`server.port`). */
  readonly path: string;
  /** The environment variable that overrides the file; none for lists too long for one. */
  readonly env: string | undefined;
  readonly type: ValueType<Exclude<T, undefined>>;
  readonly default: T | ComputedDefault<Exclude<T, undefined>>;
  /** The unit of the value as written (`MiB`, `s`); the code may use another, see `scale`. */
  readonly unit: string | undefined;
  /** Code units per written unit (1024 × 1024 for a size written in MiB and used in bytes). */
  readonly scale: number;
  /** A password or key: a refused value is not quoted back into the log. */
  readonly secret: boolean;
  /** One line for docs/configuration.md. */
  readonly doc: string;
}

interface KeySpec<T> {
  readonly file: ConfFile;
  readonly path: string;
  readonly env?: string;
  readonly type: ValueType<T>;
  readonly unit?: string;
  readonly scale?: number;
  readonly secret?: boolean;
  readonly doc: string;
}

export function key<T>(spec: KeySpec<T> & { readonly default: NoInfer<T> | ComputedDefault<NoInfer<T>> }): ConfKey<T>;
export function key<T>(spec: KeySpec<T>): ConfKey<T | undefined>;
export function key<T>(spec: KeySpec<T> & { readonly default?: T | ComputedDefault<T> }): ConfKey<T | undefined> {
  // The overloads above tie the default to the type; the object itself cannot say so.
  return {
    kind: 'key',
    env: undefined,
    unit: undefined,
    scale: 1,
    secret: false,
    default: undefined,
    ...spec,
  } as ConfKey<T | undefined>;
}

export const isComputed = (value: unknown): value is ComputedDefault<unknown> =>
  value !== null && typeof value === 'object' && 'computed' in value;

type Keys = Readonly<Record<string, ConfKey<unknown>>>;
type ValuesOf<K extends Keys> = { readonly [P in keyof K]: K[P] extends ConfKey<infer T> ? T : never };

/**
 * Keys that only mean something together (a user name and its password), made into the one value the code uses.
 * `combine` raises a ConfigError for a combination that cannot work, naming the keys from `keys`.
 */
export interface KeyGroup<K extends Keys, R> {
  readonly kind: 'group';
  readonly keys: K;
  combine(values: ValuesOf<K>, keys: K): R;
}

export const group = <K extends Keys, R>(keys: K, combine: (values: ValuesOf<K>, keys: K) => R): KeyGroup<K, R> => ({
  kind: 'group',
  keys,
  combine,
});

export type Declaration = ConfKey<unknown> | KeyGroup<Keys, unknown> | { readonly [name: string]: Declaration };

type Frozen<T> = T extends readonly (infer U)[] ? readonly U[] : T;

/** The value a declaration gives the services. */
export type ConfigOf<D> =
  D extends ConfKey<infer T>
    ? Frozen<T>
    : D extends KeyGroup<Keys, infer R>
      ? R
      : { readonly [P in keyof D]: ConfigOf<D[P]> };

// A section's `kind` would be a child declaration, never one of these strings.
export const isKey = (d: Declaration): d is ConfKey<unknown> => (d as { kind?: unknown }).kind === 'key';
export const isGroup = (d: Declaration): d is KeyGroup<Keys, unknown> => (d as { kind?: unknown }).kind === 'group';

/** Every key of a declaration, with where the code finds its value (`webserver.port`; a group's key below it). */
export function declaredKeys(declaration: Declaration, at = ''): { configPath: string; key: ConfKey<unknown> }[] {
  if (isKey(declaration)) return [{ configPath: at, key: declaration }];
  const children = isGroup(declaration) ? declaration.keys : declaration;
  return Object.entries(children).flatMap(([name, child]) => declaredKeys(child, at === '' ? name : `${at}.${name}`));
}
