/** The Sessions webview view. The host serves it with a strict CSP (see src/vscode/webviewHtml.ts). */
import '../common/zodSetup';
import '../common/l10nSetup';
import '@vscode/codicons/dist/codicon.css';
import '../common/controls.css';
import './history.css';
import { render } from 'preact';
import { App } from './App';
import { SessionsStore } from './store';

const store = new SessionsStore();
render(<App store={store} />, document.getElementById('root')!);
