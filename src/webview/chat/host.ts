/** The chat webview's bridge to the host, typed by its protocol (src/shared/chatProtocol.ts). */
import { HostToChat, type ChatToHost } from '../../shared/chatProtocol';
import { createBridge } from '../common/bridge';

export const host = createBridge<ChatToHost, HostToChat>(HostToChat);
