/** The Review Changes panel. The host serves it with a strict CSP (see src/vscode/webviewHtml.ts). */
import '../common/zodSetup';
import '../common/l10nSetup';
import '@vscode/codicons/dist/codicon.css';
import '../common/controls.css';
import './review.css';
import { render } from 'preact';
import { App } from './App';
import { ReviewStore } from './store';

render(<App store={new ReviewStore()} />, document.getElementById('root')!);
