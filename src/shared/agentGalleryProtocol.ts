/**
 * The Add Agent gallery's protocol with the extension host, validated with zod on receipt on both sides.
 * The host sends the whole gallery (`state`) whenever it changes (at most about ten times a second while an
 * install reports progress) and each icon once it has it (`icon`, a `data:` image URL: the page loads
 * nothing from the network). The webview sends verbs naming an agent by its registry id; the host checks each
 * against its own current state (a link must be one of that agent's, an action must fit what the agent is
 * doing), so a message only ever asks, never decides.
 *
 * Everything in the state came from a registry: the webview shows it as text only, never as markup. The host
 * cuts texts to the bounds below before sending (see sessions/agents/galleryView.ts), so one long description
 * cannot make the whole state fail validation.
 */
import * as z from 'zod/mini';

/** Bounds of what the gallery shows (the host cuts longer texts, drops extra items). */
export const GALLERY_LIMITS = {
  agents: 2000,
  id: 200,
  name: 200,
  version: 100,
  description: 2000,
  authors: 20,
  author: 200,
  license: 200,
  url: 2048,
  /** A reason, a progress message, an error. */
  words: 2000,
  problems: 50,
  iconIds: 200,
  /** An icon's `data:` URL (a 16×16 SVG is a few KiB; a sloppy one may be much larger). */
  dataUri: 512 * 1024,
} as const;

const text = (max: number) => z.string().check(z.maxLength(max));
const AgentId = text(GALLERY_LIMITS.id);

export const DistributionKind = z.enum(['binary', 'npx', 'uvx']);
export type DistributionKind = z.output<typeof DistributionKind>;

/** Whether one of an agent's distributions works on this machine, and if not, why (and what to do). */
export const GalleryAvailability = z.object({
  kind: DistributionKind,
  available: z.boolean(),
  reason: z.optional(text(GALLERY_LIMITS.words)),
});
export type GalleryAvailability = z.output<typeof GalleryAvailability>;

export const GalleryAgentView = z.object({
  id: AgentId,
  name: text(GALLERY_LIMITS.name),
  version: text(GALLERY_LIMITS.version),
  description: text(GALLERY_LIMITS.description),
  authors: z.array(text(GALLERY_LIMITS.author)).check(z.maxLength(GALLERY_LIMITS.authors)),
  license: z.optional(text(GALLERY_LIMITS.license)),
  /** http(s) links only (the host drops any other). */
  licenseUrl: z.optional(text(GALLERY_LIMITS.url)),
  repository: z.optional(text(GALLERY_LIMITS.url)),
  website: z.optional(text(GALLERY_LIMITS.url)),
  /** The registry lists an icon (the webview asks for it when the card shows). */
  hasIcon: z.boolean(),
  availability: z.array(GalleryAvailability).check(z.maxLength(3)),
  installed: z.optional(z.object({ version: text(GALLERY_LIMITS.version), distribution: DistributionKind })),
  /** A newer version the registry lists than the installed one. */
  update: z.optional(text(GALLERY_LIMITS.version)),
  /** An install, update or uninstall running now. */
  busy: z.optional(
    z.object({
      action: z.enum(['install', 'update', 'uninstall']),
      message: text(GALLERY_LIMITS.words),
      fraction: z.optional(z.number().check(z.gte(0), z.lte(1))),
    }),
  ),
  /** The last failure of an action on it, in words. */
  error: z.optional(text(GALLERY_LIMITS.words)),
  /** The built-in agent it backs ("Claude Code"). */
  builtIn: z.optional(text(GALLERY_LIMITS.name)),
  /** The name a New Session with it picks (the built-in's, else the installed agent's); set when installed. */
  sessionAgent: z.optional(text(GALLERY_LIMITS.name)),
});
export type GalleryAgentView = z.output<typeof GalleryAgentView>;

export const GalleryCatalogView = z.object({
  /** The registry URL; empty when the setting is empty (no registry). */
  url: text(GALLERY_LIMITS.url),
  /** It is the official ACP Registry (the status line names it so; any other by its host name). */
  official: z.boolean(),
  source: z.enum(['network', 'cache', 'snapshot']),
  /** When the registry last answered (ms since the epoch), if ever. */
  fetchedAt: z.optional(z.number()),
  /** Why the registry could not be read this time. */
  error: z.optional(text(GALLERY_LIMITS.words)),
  /** Entries skipped as invalid: how many, and the first few in words. */
  skipped: z.int().check(z.nonnegative()),
  problems: z.array(text(GALLERY_LIMITS.words)).check(z.maxLength(GALLERY_LIMITS.problems)),
});
export type GalleryCatalogView = z.output<typeof GalleryCatalogView>;

export const GalleryView = z.object({
  catalog: GalleryCatalogView,
  agents: z.array(GalleryAgentView).check(z.maxLength(GALLERY_LIMITS.agents)),
  /** False in Restricted Mode: nothing can be installed, every action is disabled. */
  trusted: z.boolean(),
  /** A refresh of the catalog is running. */
  refreshing: z.boolean(),
});
export type GalleryView = z.output<typeof GalleryView>;

export const HostToGallery = z.discriminatedUnion('type', [
  z.object({ type: z.literal('state'), state: GalleryView }),
  /** An agent's icon, an image as a `data:` URL (sent once per request; none when it has none or is offline). */
  z.object({
    type: z.literal('icon'),
    id: AgentId,
    dataUri: z.string().check(z.maxLength(GALLERY_LIMITS.dataUri), z.regex(/^data:image\/(?:svg\+xml|png|jpeg|gif|webp)(?:;[^,]*)?,/)),
  }),
]);
export type HostToGallery = z.output<typeof HostToGallery>;

export const GalleryToHost = z.discriminatedUnion('type', [
  /** The page loaded (also after the tab was hidden and shown again): the host sends the state. */
  z.object({ type: z.literal('ready') }),
  /** Install (or update, when installed and a newer version is listed) with this distribution or the first that works. */
  z.object({ type: z.literal('install'), id: AgentId, kind: z.optional(DistributionKind) }),
  /** Remove it (the host asks first). */
  z.object({ type: z.literal('uninstall'), id: AgentId }),
  z.object({ type: z.literal('cancel'), id: AgentId }),
  /** Ask the registry again. */
  z.object({ type: z.literal('refresh') }),
  /** Open one of the agent's own links (repository, website, license) in the browser. */
  z.object({ type: z.literal('openLink'), id: AgentId, url: text(GALLERY_LIMITS.url) }),
  /** A new session with the installed agent. */
  z.object({ type: z.literal('startSession'), id: AgentId }),
  /** The icons of the cards that came into view. */
  z.object({ type: z.literal('icons'), ids: z.array(AgentId).check(z.maxLength(GALLERY_LIMITS.iconIds)) }),
]);
export type GalleryToHost = z.output<typeof GalleryToHost>;
