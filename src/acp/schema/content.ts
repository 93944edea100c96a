/** Content blocks: what prompts, messages and tool results are made of. https://agentclientprotocol.com/protocol/content */
import * as z from 'zod';
import { Meta, lenient, openEnum, skipInvalidItems, tolerantUnion } from './primitives';

export const Role = openEnum(['assistant', 'user']);

export const Annotations = z.looseObject({
  audience: lenient(skipInvalidItems(Role)),
  lastModified: lenient(z.string()),
  priority: lenient(z.number()),
  _meta: Meta,
});

export const TextContent = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  annotations: lenient(Annotations),
  _meta: Meta,
});

export const ImageContent = z.looseObject({
  type: z.literal('image'),
  data: z.string(),
  mimeType: z.string(),
  uri: lenient(z.string()),
  annotations: lenient(Annotations),
  _meta: Meta,
});

export const AudioContent = z.looseObject({
  type: z.literal('audio'),
  data: z.string(),
  mimeType: z.string(),
  annotations: lenient(Annotations),
  _meta: Meta,
});

export const ResourceLink = z.looseObject({
  type: z.literal('resource_link'),
  uri: z.string(),
  name: z.string(),
  title: lenient(z.string()),
  description: lenient(z.string()),
  mimeType: lenient(z.string()),
  size: lenient(z.number().int()),
  annotations: lenient(Annotations),
  _meta: Meta,
});

export const TextResourceContents = z.looseObject({
  uri: z.string(),
  text: z.string(),
  mimeType: lenient(z.string()),
  _meta: Meta,
});

export const BlobResourceContents = z.looseObject({
  uri: z.string(),
  blob: z.string(),
  mimeType: lenient(z.string()),
  _meta: Meta,
});

export const EmbeddedResource = z.looseObject({
  type: z.literal('resource'),
  resource: z.union([TextResourceContents, BlobResourceContents]),
  annotations: lenient(Annotations),
  _meta: Meta,
});

/** A prompt or message content block. Unknown block types are kept as `{type: '$unknown', tag, raw}`. */
export const ContentBlock = tolerantUnion('type', {
  text: TextContent,
  image: ImageContent,
  audio: AudioContent,
  resource_link: ResourceLink,
  resource: EmbeddedResource,
});

/**
 * Content blocks the client itself sends (prompts). Strict: the client never sends a block it cannot
 * name, so the `$unknown` fallback is not part of this type.
 */
export const OutgoingContentBlock = z.discriminatedUnion('type', [TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource]);

export type Annotations = z.output<typeof Annotations>;
export type TextContent = z.output<typeof TextContent>;
export type ImageContent = z.output<typeof ImageContent>;
export type AudioContent = z.output<typeof AudioContent>;
export type ResourceLink = z.output<typeof ResourceLink>;
export type EmbeddedResource = z.output<typeof EmbeddedResource>;
export type TextResourceContents = z.output<typeof TextResourceContents>;
export type BlobResourceContents = z.output<typeof BlobResourceContents>;
export type ContentBlock = z.output<typeof ContentBlock>;
export type OutgoingContentBlock = z.output<typeof OutgoingContentBlock>;
