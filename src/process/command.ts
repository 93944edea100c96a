/** The command line of an agent, ready to spawn. */
export interface AgentCommand {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Only the variables set in settings (merged over the parent environment at spawn time). */
  readonly env: Readonly<Record<string, string>>;
  /** Variables removed from the parent environment (set to `null` in settings). */
  readonly unsetEnv?: readonly string[];
}
