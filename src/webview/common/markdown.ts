/**
 * Agent text as markdown, made safe: markdown-it with raw HTML disabled (HTML in agent text shows as
 * text), then DOMPurify over the result anyway. Code blocks get a header with the language and a copy
 * button (handled by the view through `data-copy`).
 *
 * Images are not loaded from the network: a remote image would tell its server who reads the chat, and
 * when. Each web image becomes a placeholder button naming the image and its host (`data-remote-image`),
 * which the view loads when the user clicks it; an image the user loaded is passed in as a `data:` URL. An
 * image given as a file or a path is a link that opens it. Only `data:` images ever reach an `<img>` (and
 * the webview's CSP allows no other).
 */
import * as l10n from '@vscode/l10n';
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import { iconClasses } from './icons';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });

md.renderer.rules.fence = (tokens, index) => {
  const token = tokens[index]!;
  const language = token.info.trim().split(/\s+/)[0] ?? '';
  const code = md.utils.escapeHtml(token.content);
  return (
    `<div class="code-block"><div class="code-header"><span class="code-language">${md.utils.escapeHtml(language)}</span>` +
    `<button class="code-copy" type="button" data-copy="code" title="${md.utils.escapeHtml(l10n.t('Copy code'))}" aria-label="${md.utils.escapeHtml(l10n.t('Copy code'))}"><span class="${iconClasses('copy')}"></span></button></div>` +
    `<pre><code>${code}</code></pre></div>`
  );
};

md.renderer.rules.image = (tokens, index, options, env: RenderEnv | undefined, self) => {
  const token = tokens[index]!;
  const src = token.attrGet('src') ?? '';
  const alt = self.renderInlineAsText(token.children ?? [], options, env);
  const escape = md.utils.escapeHtml;
  const loaded = /^data:image\//i.test(src) ? src : env?.images?.get(src);
  if (loaded) return `<img src="${escape(loaded)}" alt="${escape(alt)}"${loaded === src ? '' : ` title="${escape(src)}"`}>`;
  const host = hostOf(src);
  const what = `<span class="${iconClasses('file-media')}" aria-hidden="true"></span><span class="remote-image-alt">${escape(alt.trim() || l10n.t('Image'))}</span>`;
  if (!host) {
    // A file or a relative path: a link that opens it in the editor (the host asks first when it is outside the folders).
    return `<a class="remote-image" href="${escape(src)}" data-link title="${escape(l10n.t('Open {0}', src))}">${what}<span class="remote-image-host">${escape(src)}</span></a>`;
  }
  const title = l10n.t('Load this image from {0}. Remote images are not loaded until you ask: loading one tells {0} that this chat is being read.', host);
  return (
    `<button type="button" class="remote-image" data-remote-image="${escape(src)}" title="${escape(title)}">` +
    `${what}<span class="remote-image-host">${escape(host)}</span><span class="remote-image-action">${escape(l10n.t('Load image'))}</span></button>`
  );
};

/** The host of a web address, or undefined for anything else. */
function hostOf(src: string): string | undefined {
  try {
    const url = new URL(src);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.host : undefined;
  } catch {
    return undefined;
  }
}

// Links open through the host (it decides between files and the browser); never navigate the webview.
const defaultLink = md.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
md.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index]!.attrSet('data-link', '');
  return defaultLink(tokens, index, options, env, self);
};

const purify = DOMPurify();
// Whatever produced it, an image that is not data: is not loaded.
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'IMG' && !/^data:image\//i.test(node.getAttribute('src') ?? '')) node.removeAttribute('src');
});
purify.setConfig({
  ALLOWED_URI_REGEXP: /^(?:https?:|file:|mailto:|#|\/|[a-z0-9._-]+(?:\/|$))/i,
  FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'select', 'iframe', 'object', 'embed', 'script'],
  FORBID_ATTR: ['style', 'srcset'],
  ADD_ATTR: ['data-copy', 'data-link', 'data-remote-image'],
});

interface RenderEnv {
  readonly images?: ReadonlyMap<string, string>;
}

/** Safe HTML for a markdown string; `images` holds the remote images the user loaded (URL → `data:` URL). */
export function renderMarkdown(source: string, images?: ReadonlyMap<string, string>): string {
  const env: RenderEnv = { images };
  return purify.sanitize(md.render(source, env));
}
