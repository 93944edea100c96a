/**
 * Seed 003's rule for Sandbox Agent's own protocol surface: `_sandboxagent/*` methods and
 * `_meta["sandboxagent.dev"]` are used only when the agent advertises them in
 * `initialize.result.agentCapabilities._meta["sandboxagent.dev"].extensions`. This reads that advertisement so the
 * rest can feature-detect; the client sends none of them by default and degrades to ACP's own methods.
 */
import * as z from 'zod';

/** The `_meta` key Sandbox Agent uses. */
export const SANDBOX_META_KEY = 'sandboxagent.dev';

/** The extensions an agent served by Sandbox Agent advertises (each false unless advertised as `true`). */
export interface SandboxExtensions {
  /** `_meta["sandboxagent.dev"]` on `session/new` and `_sandboxagent/session/set_metadata`. */
  readonly sessionMetadata: boolean;
  /** `_sandboxagent/session/request_question` (agent → client). */
  readonly requestQuestion: boolean;
  /** `_sandboxagent/session/terminate`. */
  readonly sessionTerminate: boolean;
  /** `_sandboxagent/session/events`. */
  readonly sessionEventsPoll: boolean;
}

export const NO_SANDBOX_EXTENSIONS: SandboxExtensions = Object.freeze({
  sessionMetadata: false,
  requestQuestion: false,
  sessionTerminate: false,
  sessionEventsPoll: false,
});

const flag = z
  .boolean()
  .catch(false)
  .optional()
  .transform((value) => value === true);
const Advertised = z.object({
  _meta: z.object({
    [SANDBOX_META_KEY]: z.object({
      extensions: z.object({ sessionMetadata: flag, requestQuestion: flag, sessionTerminate: flag, sessionEventsPoll: flag }),
    }),
  }),
});

/**
 * What `agentCapabilities` (the `initialize` result's, as received) advertises; anything missing, malformed or
 * not exactly `true` counts as not advertised. Pure; never throws.
 */
export function sandboxExtensions(agentCapabilities: unknown): SandboxExtensions {
  const parsed = Advertised.safeParse(agentCapabilities);
  return parsed.success ? Object.freeze({ ...parsed.data._meta[SANDBOX_META_KEY].extensions }) : NO_SANDBOX_EXTENSIONS;
}
