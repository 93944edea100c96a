/**
 * ACP v1 (stable, plus the unstable `session/fork` and `session/set_title`) as zod schemas, and one
 * definition per protocol method: its name, direction, params schema and result schema.
 *
 * Spec: https://agentclientprotocol.com/protocol/overview. JSON Schema of record:
 * `@agentclientprotocol/sdk/schema/v1/schema.unstable.json` (tests validate what we send against it).
 */
import type * as z from 'zod';
import * as client from './clientMethods';
import * as init from './initialize';
import * as life from './lifecycle';
import { SessionNotification } from './updates';

export * from './clientMethods';
export * from './content';
export * from './initialize';
export * from './lifecycle';
export * from './mcp';
export * from './primitives';
export * from './sessionState';
export * from './toolCall';
export * from './updates';

/** Who sends the message. */
export type Direction = 'client→agent' | 'agent→client' | 'both';

export interface RequestDefinition<M extends string = string, P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly kind: 'request';
  readonly method: M;
  readonly direction: Direction;
  readonly params: P;
  readonly result: R;
}

export interface NotificationDefinition<M extends string = string, P extends z.ZodType = z.ZodType> {
  readonly kind: 'notification';
  readonly method: M;
  readonly direction: Direction;
  readonly params: P;
}

const request = <const M extends string, P extends z.ZodType, R extends z.ZodType>(
  method: M,
  direction: Direction,
  params: P,
  result: R,
): RequestDefinition<M, P, R> => ({ kind: 'request', method, direction, params, result });

const notification = <const M extends string, P extends z.ZodType>(method: M, direction: Direction, params: P): NotificationDefinition<M, P> => ({
  kind: 'notification',
  method,
  direction,
  params,
});

export type ParamsOf<D extends RequestDefinition | NotificationDefinition> = z.output<D['params']>;
export type ResultOf<D extends RequestDefinition> = z.output<D['result']>;

// ---- client → agent -------------------------------------------------------------------------------

/** Client → agent. First message: protocol version and capabilities both ways. https://agentclientprotocol.com/protocol/initialization */
export const InitializeMethod = request('initialize', 'client→agent', init.InitializeRequest, init.InitializeResponse);
/** Client → agent. Run one of the agent's `authMethods` (never a `terminal` one). */
export const AuthenticateMethod = request('authenticate', 'client→agent', init.AuthenticateRequest, life.EmptyResult);
/** Client → agent. Gated by `agentCapabilities.auth.logout`. */
export const LogoutMethod = request('logout', 'client→agent', init.EmptyObject, life.EmptyResult);
/** Client → agent. https://agentclientprotocol.com/protocol/session-setup#creating-a-session */
export const SessionNewMethod = request('session/new', 'client→agent', life.NewSessionRequest, life.NewSessionResponse);
/** Client → agent. Gated by `loadSession`; the history is replayed as `session/update` before the result. */
export const SessionLoadMethod = request('session/load', 'client→agent', life.LoadSessionRequest, life.LoadSessionResponse);
/** Client → agent. Gated by `sessionCapabilities.resume`; no replay. */
export const SessionResumeMethod = request('session/resume', 'client→agent', life.ResumeSessionRequest, life.ResumeSessionResponse);
/** Client → agent. Unstable; gated by `sessionCapabilities.fork`. */
export const SessionForkMethod = request('session/fork', 'client→agent', life.ForkSessionRequest, life.ForkSessionResponse);
/** Client → agent. Gated by `sessionCapabilities.list`. https://agentclientprotocol.com/protocol/session-list */
export const SessionListMethod = request('session/list', 'client→agent', life.ListSessionsRequest, life.ListSessionsResponse);
/** Client → agent. Gated by `sessionCapabilities.close`: cancels work and frees resources, keeps history. */
export const SessionCloseMethod = request('session/close', 'client→agent', life.SessionIdRequest, life.EmptyResult);
/** Client → agent. Gated by `sessionCapabilities.delete`; idempotent. */
export const SessionDeleteMethod = request('session/delete', 'client→agent', life.SessionIdRequest, life.EmptyResult);
/** Client → agent. Only for sessions whose setup returned `modes`. */
export const SessionSetModeMethod = request('session/set_mode', 'client→agent', life.SetSessionModeRequest, life.EmptyResult);
/** Client → agent. Unstable; only for sessions whose setup answer had `models` (config options of category `model` come first). */
export const SessionSetModelMethod = request('session/set_model', 'client→agent', life.SetSessionModelRequest, life.EmptyResult);
/** Client → agent. Only for sessions whose setup returned `configOptions`; answers the full set. */
export const SessionSetConfigOptionMethod = request(
  'session/set_config_option',
  'client→agent',
  life.SetSessionConfigOptionRequest,
  life.SetSessionConfigOptionResponse,
);
/** Client → agent. Unstable; gated by `sessionCapabilities.title`. */
export const SessionSetTitleMethod = request('session/set_title', 'client→agent', life.SetSessionTitleRequest, life.SetSessionTitleResponse);
/** Client → agent. One prompt turn; updates stream as `session/update` until the result. */
export const SessionPromptMethod = request('session/prompt', 'client→agent', life.PromptRequest, life.PromptResponse);
/** Client → agent (notification). Cancel the running turn. */
export const SessionCancelNotification = notification('session/cancel', 'client→agent', life.CancelParams);

// ---- agent → client -------------------------------------------------------------------------------

/** Agent → client (notification). https://agentclientprotocol.com/protocol/prompt-turn */
export const SessionUpdateNotification = notification('session/update', 'agent→client', SessionNotification);
/** Agent → client. Ask the user to approve a tool call; options are matched by `kind`. */
export const RequestPermissionMethod = request('session/request_permission', 'agent→client', client.RequestPermissionRequest, client.RequestPermissionResponse);
/** Agent → client. Gated by `clientCapabilities.fs.readTextFile`. */
export const ReadTextFileMethod = request('fs/read_text_file', 'agent→client', client.ReadTextFileRequest, client.ReadTextFileResponse);
/** Agent → client. Gated by `clientCapabilities.fs.writeTextFile`. */
export const WriteTextFileMethod = request('fs/write_text_file', 'agent→client', client.WriteTextFileRequest, life.EmptyResult);
/** Agent → client. Gated by `clientCapabilities.terminal` (as are the four below). */
export const TerminalCreateMethod = request('terminal/create', 'agent→client', client.CreateTerminalRequest, client.CreateTerminalResponse);
export const TerminalOutputMethod = request('terminal/output', 'agent→client', client.TerminalRequest, client.TerminalOutputResponse);
export const TerminalWaitForExitMethod = request('terminal/wait_for_exit', 'agent→client', client.TerminalRequest, client.WaitForTerminalExitResponse);
export const TerminalKillMethod = request('terminal/kill', 'agent→client', client.TerminalRequest, life.EmptyResult);
export const TerminalReleaseMethod = request('terminal/release', 'agent→client', client.TerminalRequest, life.EmptyResult);
/** Agent → client. Gated by `clientCapabilities.elicitation.form` / `.url`. */
export const ElicitationCreateMethod = request('elicitation/create', 'agent→client', client.CreateElicitationRequest, client.CreateElicitationResponse);
/** Agent → client (notification). A URL elicitation finished out of band. */
export const ElicitationCompleteNotification = notification('elicitation/complete', 'agent→client', client.CompleteElicitationNotification);

// ---- both ways --------------------------------------------------------------------------------------

/** Either side (notification). Cancel one outstanding request; it still gets an answer, or -32800. */
export const CancelRequestNotification = notification('$/cancel_request', 'both', life.CancelRequestParams);

/** Every request the agent may send the client, by method name. */
export const agentToClientRequests = [
  RequestPermissionMethod,
  ReadTextFileMethod,
  WriteTextFileMethod,
  TerminalCreateMethod,
  TerminalOutputMethod,
  TerminalWaitForExitMethod,
  TerminalKillMethod,
  TerminalReleaseMethod,
  ElicitationCreateMethod,
] as const;

/** Every request the client may send the agent. */
export const clientToAgentRequests = [
  InitializeMethod,
  AuthenticateMethod,
  LogoutMethod,
  SessionNewMethod,
  SessionLoadMethod,
  SessionResumeMethod,
  SessionForkMethod,
  SessionListMethod,
  SessionCloseMethod,
  SessionDeleteMethod,
  SessionSetModeMethod,
  SessionSetModelMethod,
  SessionSetConfigOptionMethod,
  SessionSetTitleMethod,
  SessionPromptMethod,
] as const;
