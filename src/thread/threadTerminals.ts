/**
 * The terminals of a transcript: every command the agent runs shows once. A terminal gets an entry of its own
 * the first time it reports, so a command shows even when no tool call wraps it; once a tool call shows the
 * terminal, that entry steps back (`inToolCall`), and every tool call showing it follows its live output.
 *
 * A terminal the agent runs itself (pi-acp, codex-acp: no `terminal/create`, its state in the tool call's
 * `_meta`; ACP v2's agent-owned terminals) is shown by the tool call that reports it, its output appended
 * as it comes and kept to the last {@link MAX_AGENT_OUTPUT_CHARS} characters.
 */
import type { AgentTerminalReport } from '../acp/port/events';
import type { ViewEntry, ViewToolContent } from '../shared/chatModel';
import type { EntryLog } from './entryLog';
import { terminalFields, type ThreadTerminal } from './toView';

/** The output of an agent-owned terminal a chat keeps (the end of it; earlier output is said to be cut). */
export const MAX_AGENT_OUTPUT_CHARS = 1024 * 1024;

export class ThreadTerminals {
  /** The live state of each terminal, as its last report said. */
  private readonly live = new Map<string, ThreadTerminal>();
  /** The entry showing each terminal on its own. */
  private readonly ownEntries = new Map<string, string>();

  /** `addEntry` adds an entry of the transcript (closing the open message first) and returns its id. */
  constructor(
    private readonly entries: EntryLog,
    private readonly addEntry: (entry: ViewEntry) => string,
    private readonly newId: (prefix: string) => string,
  ) {}

  /** A terminal the agent started, its new output or its exit. */
  update(terminalId: string, view: ThreadTerminal): void {
    this.live.set(terminalId, view);
    let inToolCall = false;
    for (const entry of this.entries.view()) {
      if (entry.kind !== 'tool' || !entry.content.some((c) => c.type === 'terminal' && c.terminalId === terminalId)) continue;
      inToolCall = true;
      this.entries.put({ ...entry, content: entry.content.map((c) => this.withLive(c)) });
    }
    const own = this.ownEntry(terminalId);
    if (own) {
      this.entries.put({ ...own, ...terminalFields(view) });
    } else if (!inToolCall) {
      const id = this.addEntry({
        kind: 'terminal',
        id: this.newId('terminal'),
        terminalId,
        command: view.command ?? '',
        ...terminalFields(view),
        inToolCall: false,
      });
      this.ownEntries.set(terminalId, id);
    }
  }

  /**
   * A terminal the agent runs itself, as the tool call entry `toolEntryId` reports it: that tool call shows it
   * (even when its content does not name it), with the output so far and how it ended.
   */
  agentReport(report: AgentTerminalReport, toolEntryId: string): void {
    const view = this.agentView(report);
    this.live.set(report.terminalId, view);
    const tool = this.entries.get(toolEntryId);
    if (tool?.kind !== 'tool') return;
    const shows = tool.content.some((c) => c.type === 'terminal' && c.terminalId === report.terminalId);
    const content = shows ? tool.content : [{ type: 'terminal' as const, terminalId: report.terminalId }, ...tool.content];
    this.entries.put({ ...tool, content: content.map((c) => this.withLive(c)) });
  }

  /**
   * A terminal the agent runs itself, reported on its own (ACP v2's `terminal_update` and output chunks): every
   * tool call whose content shows it follows it, and it has an entry of its own while none does.
   */
  agentTerminal(report: AgentTerminalReport): void {
    this.update(report.terminalId, this.agentView(report));
  }

  /** An agent-owned terminal's state after a report: output appended (or replaced), the end of it kept. */
  private agentView(report: AgentTerminalReport): ThreadTerminal {
    const before = this.live.get(report.terminalId);
    let output = report.outputReplaces === true ? '' : (before?.output ?? '');
    let truncated = report.outputReplaces !== true && before?.truncated === true;
    if (report.output !== undefined) {
      output += report.output;
      if (output.length > MAX_AGENT_OUTPUT_CHARS) {
        output = output.slice(output.length - MAX_AGENT_OUTPUT_CHARS);
        truncated = true;
      }
    }
    const { truncated: _wasTruncated, ...rest } = before ?? {};
    return {
      ...rest,
      agentOwned: true,
      ...(report.command !== undefined ? { command: report.command } : {}),
      ...(report.cwd !== undefined ? { cwd: report.cwd } : {}),
      output,
      ...(truncated ? { truncated } : {}),
      ...(report.exitStatus ? { exitStatus: report.exitStatus } : {}),
    };
  }

  /**
   * A tool call's new content: an agent-owned terminal it showed stays (its state comes from `_meta`, not
   * from `content`, which an agent may send again without it).
   */
  keepAgentOwned(previous: readonly ViewToolContent[], next: ViewToolContent[]): ViewToolContent[] {
    const kept = previous.filter(
      (c) => c.type === 'terminal' && c.agentOwned === true && !next.some((n) => n.type === 'terminal' && n.terminalId === c.terminalId),
    );
    return kept.length === 0 ? next : [...kept, ...next];
  }

  /** A `terminal/create` that failed for a reason other than a refused folder (that is a refusal). */
  addFailure(command: string, cwd: string | undefined, error: string): void {
    this.addEntry({ kind: 'terminal', id: this.newId('terminal'), command, ...(cwd !== undefined ? { cwd } : {}), error, inToolCall: false });
  }

  /** A tool call shows this terminal: its own entry steps back (one place shows a command). */
  shownInTool(terminalId: string): void {
    const own = this.ownEntry(terminalId);
    if (own && !own.inToolCall) this.entries.put({ ...own, inToolCall: true });
  }

  /** A tool call's content with the terminal's live state. */
  withLive(content: ViewToolContent): ViewToolContent {
    if (content.type !== 'terminal') return content;
    const live = this.live.get(content.terminalId);
    return live ? { type: 'terminal', terminalId: content.terminalId, ...live } : content;
  }

  /** The transcript now shows exactly these entries: a terminal entry kept among them goes on following its command. */
  shown(entries: readonly ViewEntry[]): void {
    this.ownEntries.clear();
    for (const entry of entries) {
      if (entry.kind === 'terminal' && entry.terminalId !== undefined) this.ownEntries.set(entry.terminalId, entry.id);
    }
  }

  private ownEntry(terminalId: string) {
    const id = this.ownEntries.get(terminalId);
    const entry = id === undefined ? undefined : this.entries.get(id);
    return entry?.kind === 'terminal' ? entry : undefined;
  }
}
