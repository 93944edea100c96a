/**
 * The names VS Code knows our parts by (package.json's views, the webview panel types of the chat, review and Add Agent tabs, the schemes of
 * our read-only documents). Plain strings in a module of their own: the activation bundle registers these
 * parts without loading the modules that implement them.
 */
export const AGENTS_VIEW_ID = 'acpWorkspace.agents';
export const SESSIONS_VIEW_ID = 'acpWorkspace.sessions';
export const CHAT_VIEW_TYPE = 'acpWorkspace.chat';
/** The Review Changes tab (src/vscode/review/reviewPanels.ts). */
export const REVIEW_VIEW_TYPE = 'acpWorkspace.review';
/** The Add Agent tab (src/vscode/agentGallery.ts). */
export const AGENT_GALLERY_VIEW_TYPE = 'acpWorkspace.agentGallery';
/** Tool-call diffs (src/vscode/chat/diffDocuments.ts). */
export const DIFF_SCHEME = 'acp-diff';
/** Files as a checkpoint has them (src/vscode/review/checkpointDocuments.ts). */
export const CHECKPOINT_SCHEME = 'acp-checkpoint';
/** A chat's transcript as text (src/vscode/chat/transcriptExport.ts). */
export const TRANSCRIPT_SCHEME = 'acp-transcript';
/** Every scheme whose documents the extension serves. */
export const DOCUMENT_SCHEMES = [DIFF_SCHEME, CHECKPOINT_SCHEME, TRANSCRIPT_SCHEME] as const;
export type DocumentScheme = (typeof DOCUMENT_SCHEMES)[number];
