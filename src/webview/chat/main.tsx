/** The chat webview. The host serves it with a strict CSP (see src/vscode/webviewHtml.ts). */
import '../common/zodSetup';
import '../common/l10nSetup';
import '@vscode/codicons/dist/codicon.css';
import '../common/controls.css';
import './chat.css';
import './changes.css';
import { mountChat } from './mount';
import { ChatStore } from './store';

mountChat(new ChatStore());
