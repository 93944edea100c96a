/** The Sessions view's bridge to the host, typed by its protocol (src/shared/historyProtocol.ts). */
import { HostToSessions, type SessionsToHost } from '../../shared/historyProtocol';
import { createBridge } from '../common/bridge';

export const host = createBridge<SessionsToHost, HostToSessions>(HostToSessions);
