/** Renders the chat app for a store (the webview's entry does; so does the chat benchmark's page). */
import { options, render } from 'preact';
import { App } from './App';
import type { ChatStore } from './store';

export function mountChat(store: ChatStore): void {
  // Render synchronously when state changes: the store applies host patches inside an animation frame and
  // measures that frame (applying + rendering), so the work must happen there, not in a later microtask.
  options.debounceRendering = (callback) => callback();
  render(<App store={store} />, document.getElementById('root')!);
}
