/**
 * Agent text as markdown, made safe: markdown-it with raw HTML disabled (HTML in agent text shows as
 * text), then DOMPurify over the result anyway. Code blocks get a header with the language and a copy
 * button (handled by the view through `data-copy`).
 */
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });

md.renderer.rules.fence = (tokens, index) => {
  const token = tokens[index]!;
  const language = token.info.trim().split(/\s+/)[0] ?? '';
  const code = md.utils.escapeHtml(token.content);
  return (
    `<div class="code-block"><div class="code-header"><span class="code-language">${md.utils.escapeHtml(language)}</span>` +
    `<button class="code-copy" type="button" data-copy="code" title="Copy code" aria-label="Copy code"><span class="codicon codicon-copy"></span></button></div>` +
    `<pre><code>${code}</code></pre></div>`
  );
};

// Links open through the host (it decides between files and the browser); never navigate the webview.
const defaultLink = md.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
md.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index]!.attrSet('data-link', '');
  return defaultLink(tokens, index, options, env, self);
};

const purify = DOMPurify();
purify.setConfig({
  ALLOWED_URI_REGEXP: /^(?:https?:|file:|mailto:|#|\/|[a-z0-9._-]+(?:\/|$))/i,
  FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'select', 'iframe', 'object', 'embed', 'script'],
  FORBID_ATTR: ['style', 'srcset'],
  ADD_ATTR: ['data-copy', 'data-link'],
});

/** Safe HTML for a markdown string. */
export function renderMarkdown(source: string): string {
  return purify.sanitize(md.render(source));
}
