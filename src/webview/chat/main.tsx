/** The chat webview. The host serves it with a strict CSP (see src/vscode/webviewHtml.ts). */
import '../common/zodSetup';
import '@vscode/codicons/dist/codicon.css';
import '../common/controls.css';
import './chat.css';
import { options, render } from 'preact';
import { App } from './App';
import { ChatStore } from './store';

// Render synchronously when state changes: the store applies host patches inside an animation frame and
// measures that frame (applying + rendering), so the work must happen there, not in a later microtask.
options.debounceRendering = (callback) => callback();

const store = new ChatStore();
(window as unknown as { acpChatStore: ChatStore }).acpChatStore = store;
render(<App store={store} />, document.getElementById('root')!);
