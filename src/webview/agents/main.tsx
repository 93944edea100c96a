/** The Add Agent tab. The host serves it with a strict CSP (see src/vscode/webviewHtml.ts). */
import '../common/zodSetup';
import '../common/l10nSetup';
import '@vscode/codicons/dist/codicon.css';
import '../common/controls.css';
import './agents.css';
import { render } from 'preact';
import { App } from './App';
import { GalleryStore } from './store';

render(<App store={new GalleryStore()} />, document.getElementById('root')!);
