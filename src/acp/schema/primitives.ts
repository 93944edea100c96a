/**
 * Building blocks for the ACP v1 zod schemas.
 *
 * Reading is tolerant in the same places the official schema is (its `x-deserialize-default-on-error`
 * and `x-deserialize-skip-invalid-items` annotations), and a little more: enums are open (an unknown
 * value is kept as a string, never a reason to reject the whole message) and discriminated unions keep
 * variants they do not know as an explicit `$unknown` member instead of failing.
 */
import * as z from 'zod';
import { formatIssues } from '../../common/zodIssues';

export { formatIssues };

/** An enum that also accepts values added by newer agents; known values keep their literal types. */
export type Open<T extends string> = T | (string & {});

/** Schema for an open enum. `values` documents (and lets the UI list) the values this client knows. */
export function openEnum<const T extends readonly [string, ...string[]]>(values: T): z.ZodType<Open<T[number]>> & { readonly known: T } {
  // A plain string schema: unknown values pass, typed so known values still narrow in `switch`.
  const schema = z.string() as unknown as z.ZodType<Open<T[number]>> & { known: T };
  Object.defineProperty(schema, 'known', { value: values, enumerable: false });
  return schema;
}

/** `_meta`: extension data, kept exactly as sent. A value that is not an object is dropped (default on error). */
export const Meta = z.record(z.string(), z.unknown()).nullish().catch(undefined);

/**
 * An optional field that reverts to absent when the agent sends a value of the wrong shape,
 * as the official schema's `x-deserialize-default-on-error` says.
 */
export function lenient<T extends z.ZodType>(schema: T) {
  return schema.nullish().catch(undefined);
}

/**
 * An array that drops items failing validation instead of rejecting the message
 * (`x-deserialize-skip-invalid-items`). A value that is not an array becomes `[]`.
 */
export function skipInvalidItems<T extends z.ZodType>(item: T): z.ZodType<Array<z.output<T>>, unknown> {
  // optional(): an absent key also becomes [] (the schema's default) rather than an error.
  return z
    .unknown()
    .optional()
    .transform((value) => {
      if (!Array.isArray(value)) return [];
      const items: Array<z.output<T>> = [];
      for (const candidate of value) {
        const parsed = item.safeParse(candidate);
        if (parsed.success) items.push(parsed.data);
      }
      return items;
    });
}

/** The shape a variant takes when its discriminator is one this client does not know (or cannot read). */
export type UnknownVariant<K extends string> = { readonly [P in K]: '$unknown' } & {
  /** The discriminator value the agent sent, e.g. `"future_variant"`. */
  readonly tag: string;
  /** The whole object as received. */
  readonly raw: Readonly<Record<string, unknown>>;
  /** Set when the tag is known but the object failed validation: why it could not be read. */
  readonly error?: string;
};

type VariantMap = Record<string, z.ZodObject>;
type VariantOutput<V extends VariantMap> = { [T in keyof V]: z.output<V[T]> }[keyof V];

export interface TolerantUnionOptions {
  /**
   * Reject (rather than keep as `$unknown`) a known tag whose fields do not validate. Use it for
   * requests, where invalid params must be answered with `-32602`; leave it off for what the agent
   * streams, where keeping an unreadable item beats losing it.
   */
  readonly strictKnownVariants?: boolean;
}

/** Marks input that is not even an object with a string tag (the one thing a tolerant union rejects). */
const UNREADABLE: unique symbol = Symbol('unreadable');

function tagOf(input: unknown, key: string): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const tag = (input as Record<string, unknown>)[key];
  return typeof tag === 'string' ? tag : undefined;
}

/**
 * A discriminated union that never rejects because of its tag: an unknown tag yields an
 * {@link UnknownVariant} carrying the raw object; so does a known tag whose fields do not validate
 * (with the reason), unless `strictKnownVariants` is set. Each variant schema declares its own tag.
 *
 * Known variants go through zod's discriminated union (one lookup, one object parse): this sits on
 * the hot path of every streamed `session/update`.
 */
export function tolerantUnion<K extends string, const V extends VariantMap>(
  key: K,
  variants: V,
  options: TolerantUnionOptions = {},
): z.ZodType<VariantOutput<V> | UnknownVariant<K>, unknown> & { readonly variants: V } {
  const members = Object.values(variants) as [z.ZodObject, ...z.ZodObject[]];
  const known = z.discriminatedUnion(key, members);
  let schema: z.ZodType;
  if (options.strictKnownVariants) {
    const unknownTag = z
      .looseObject({ [key]: z.string().refine((tag) => !(tag in variants)) })
      .transform((raw) => unknownVariant(key, raw[key] as string, raw));
    schema = z.unknown().transform((input, ctx) => {
      const tag = tagOf(input, key);
      const parsed = tag !== undefined && !(tag in variants) ? unknownTag.safeParse(input) : known.safeParse(input);
      if (parsed.success) return parsed.data;
      for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path, input });
      return z.NEVER;
    });
  } else {
    schema = (known as z.ZodType<unknown>)
      .catch(({ input, error }: { input: unknown; error: z.ZodError }) => {
        const tag = tagOf(input, key);
        if (tag === undefined) return UNREADABLE;
        const raw = input as Record<string, unknown>;
        return tag in variants ? unknownVariant(key, tag, raw, formatIssues(error.issues)) : unknownVariant(key, tag, raw);
      })
      .refine((value) => value !== UNREADABLE, { message: `expected an object with a string "${key}"` });
  }
  Object.defineProperty(schema, 'variants', { value: variants, enumerable: false });
  return schema as unknown as z.ZodType<VariantOutput<V> | UnknownVariant<K>, unknown> & { readonly variants: V };
}

function unknownVariant<K extends string>(key: K, tag: string, raw: Record<string, unknown>, error?: string): UnknownVariant<K> {
  const result: Record<string, unknown> = { [key]: '$unknown', tag, raw };
  if (error !== undefined) result['error'] = error;
  return result as UnknownVariant<K>;
}

/** Absolute path or URI strings are plain strings on the wire; these aliases document intent. */
export const SessionId = z.string();
export const ToolCallId = z.string();
export const TerminalId = z.string();
export const RequestId = z.union([z.null(), z.number().int(), z.string()]);
