/**
 * Events outside the VS Code layer: vscode-jsonrpc's `Emitter` (the same shape as VS Code's
 * `EventEmitter`: `event` to subscribe, `fire`, `dispose`), so plain modules announce changes the way the
 * adapters expect.
 */
export { Emitter, type Event } from 'vscode-jsonrpc';
