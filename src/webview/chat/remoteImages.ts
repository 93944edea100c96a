/**
 * Remote images in agent text, loaded only when the user asks. Markdown shows each as a placeholder
 * (`data-remote-image`, see common/markdown.ts); a click asks the host to fetch it (the webview loads nothing
 * from the network: its CSP allows only `data:` images) and shows the answer in place of every placeholder
 * for the same address. The tab remembers which addresses the user loaded, so they show again when the
 * webview is recreated or the window reloads.
 */
import * as l10n from '@vscode/l10n';
import { ChatRequests } from '../../shared/chatProtocol';
import { host } from './host';
import { persistImages, savedImages } from './persist';

/** Most addresses remembered per tab. */
const MAX_REMEMBERED = 200;

class RemoteImages {
  /** Loaded images: address → `data:` URL (markdown renders these as images). */
  readonly loaded = new Map<string, string>();
  private readonly approved = new Set<string>(savedImages());
  private readonly loading = new Set<string>();
  /** Failed to load: tried again only when the user clicks again. */
  private readonly failed = new Set<string>();

  /** The user asked to see the image at `url`. */
  load(url: string): void {
    if (this.loaded.has(url) || this.loading.has(url)) return;
    if (!this.approved.has(url)) {
      this.approved.add(url);
      const urls = [...this.approved].slice(-MAX_REMEMBERED);
      persistImages(urls);
    }
    this.loading.add(url);
    this.failed.delete(url);
    this.mark(url, 'loading', 'Loading…');
    host.request(ChatRequests.loadImage, { url }).then(
      ({ dataUrl }) => {
        this.loading.delete(url);
        this.loaded.set(url, dataUrl);
        for (const placeholder of this.placeholders(url)) placeholder.replaceWith(image(dataUrl, url, placeholder));
      },
      (error: unknown) => {
        this.loading.delete(url);
        this.failed.add(url);
        this.mark(url, 'failed', l10n.t('Could not load: {0}', error instanceof Error ? error.message : String(error)));
      },
    );
  }

  /** Placeholders of images the user loaded before (the view was recreated): load them again. */
  restore(root: ParentNode): void {
    // Runs after every render: look at the transcript only while an image the user chose is still to load.
    if (![...this.approved].some((url) => !this.loaded.has(url) && !this.loading.has(url) && !this.failed.has(url))) return;
    for (const placeholder of root.querySelectorAll<HTMLElement>('[data-remote-image]')) {
      const url = placeholder.dataset['remoteImage'] ?? '';
      const loaded = this.loaded.get(url);
      if (loaded) placeholder.replaceWith(image(loaded, url, placeholder));
      else if (this.approved.has(url) && !this.failed.has(url)) this.load(url);
    }
  }

  private placeholders(url: string): HTMLElement[] {
    return [...document.querySelectorAll<HTMLElement>('[data-remote-image]')].filter((element) => element.dataset['remoteImage'] === url);
  }

  private mark(url: string, state: 'loading' | 'failed', text: string): void {
    for (const placeholder of this.placeholders(url)) {
      placeholder.classList.remove('loading', 'failed');
      placeholder.classList.add(state);
      const action = placeholder.querySelector('.remote-image-action');
      if (action) action.textContent = state === 'failed' ? 'Try again' : text;
      if (state === 'failed') placeholder.title = text;
    }
  }
}

function image(dataUrl: string, url: string, placeholder: HTMLElement): HTMLImageElement {
  const img = document.createElement('img');
  img.src = dataUrl;
  img.alt = placeholder.querySelector('.remote-image-alt')?.textContent ?? '';
  img.title = url;
  return img;
}

export const remoteImages = new RemoteImages();
