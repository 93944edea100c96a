/**
 * Remote agents' credentials in VS Code's SecretStorage (the OS keychain), one entry per endpoint under
 * `acpWorkspace.remote:<origin+path>` (a Sandbox Agent server's agents share the server's): `{ token?, headers? }`
 * as JSON, read back with zod. A value is never logged or shown; an unreadable one counts as none.
 */
import type * as vscode from 'vscode';
import type { RemoteCredentials } from '../acp/transport/remote';
import { Emitter, type Event } from '../common/events';
import { Disposable } from '../common/lifecycle';
import type { Logger } from '../common/logger';
import { parseStoredCredentials, REMOTE_SECRET_PREFIX, remoteSecretKey, storedCredentialsValue } from '../sessions/agents/remoteAgentEntry';
import { errorMessage } from '../common/errors';

export class RemoteSecrets extends Disposable {
  private readonly changeEmitter = this._register(new Emitter<string>());
  /** The credentials of an endpoint changed (here or in another window): the key ({@link remoteSecretKey}). */
  readonly onDidChange: Event<string> = this.changeEmitter.event;

  constructor(
    private readonly storage: vscode.SecretStorage,
    private readonly logger: Logger,
  ) {
    super();
    this._register(storage.onDidChange((event) => event.key.startsWith(REMOTE_SECRET_PREFIX) && this.changeEmitter.fire(event.key)));
  }

  /** The credentials kept for `url` (none when nothing, or nothing readable, is stored). */
  async get(url: string): Promise<RemoteCredentials> {
    const key = remoteSecretKey(url);
    let value: string | undefined;
    try {
      value = await this.storage.get(key);
    } catch (error) {
      // The keychain can be locked or missing (Linux without a secret service).
      this.logger.warn(`The credentials for ${key.slice(REMOTE_SECRET_PREFIX.length)} could not be read from secret storage: ${errorMessage(error)}`);
      return {};
    }
    const { credentials, problem } = parseStoredCredentials(value);
    if (problem) this.logger.warn(`The credentials stored for ${key.slice(REMOTE_SECRET_PREFIX.length)} were ignored: ${problem}.`);
    return credentials;
  }

  /** Keeps `credentials` for `url`; empty credentials delete the entry. */
  async set(url: string, credentials: RemoteCredentials): Promise<void> {
    const value = storedCredentialsValue(credentials);
    if (value === undefined) return this.clear(url);
    await this.storage.store(remoteSecretKey(url), value);
  }

  async clear(url: string): Promise<void> {
    await this.storage.delete(remoteSecretKey(url));
  }
}
