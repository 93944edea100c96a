/**
 * The script of the scripted model server: reads an Anthropic Messages API request and decides the
 * answer. Pure functions, no I/O, so the rules are unit-tested on their own.
 *
 * The prompt (the last user turn's own text, ignoring `<system-reminder>` blocks and any system or
 * assistant messages after it) picks a scenario:
 *
 * | prompt | first answer | after the tool result comes back |
 * |---|---|---|
 * | `read <path>` | a `tool_use` of the offered read tool | text quoting what was read (or the error) |
 * | `write <path> <text>` | a `tool_use` of the offered write tool | "Wrote <path>." (or the refusal) |
 * | `bash <command>` | a `tool_use` of the offered shell tool | text quoting the output |
 * | `history` | text listing the earlier prompts of the conversation | — |
 * | anything else | a markdown answer, streamed in several chunks | — |
 *
 * Tools are never assumed: each is found among the tools the request offers, by its name and by the
 * shape of its input schema (a read tool with a path-like property, a write tool with a path and a
 * content property, a shell tool with a `command` property). Requests that offer no tools are an agent's
 * side requests (titles, quota checks, summaries) and get a short plain answer.
 */

/** The parts of a Messages API request the script looks at. */
export interface MessagesRequest {
  readonly model?: string;
  readonly max_tokens?: number;
  readonly stream?: boolean;
  readonly system?: string | readonly ContentBlockParam[];
  readonly messages: readonly MessageParam[];
  readonly tools?: readonly ToolParam[];
}

export interface MessageParam {
  readonly role: string;
  readonly content: string | readonly ContentBlockParam[];
}

export interface ContentBlockParam {
  readonly type: string;
  readonly text?: string;
  readonly id?: string;
  readonly name?: string;
  readonly input?: unknown;
  readonly tool_use_id?: string;
  readonly content?: string | readonly ContentBlockParam[];
  readonly is_error?: boolean;
}

export interface ToolParam {
  readonly name: string;
  readonly description?: string;
  readonly input_schema?: {
    readonly properties?: Readonly<Record<string, { readonly type?: string | readonly string[] } | undefined>>;
    readonly required?: readonly string[];
  };
}

/** One block of the answer. Text is streamed in the given chunks; tool input as JSON in two halves. */
export type ReplyBlock =
  | { readonly type: 'text'; readonly chunks: readonly string[] }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: Readonly<Record<string, unknown>> };

export interface Reply {
  /** `read`, `write`, `bash` (with `:result` after the tool ran), `history`, `text`, or `side:<what>`. */
  readonly scenario: string;
  readonly blocks: readonly ReplyBlock[];
  readonly stopReason: 'end_turn' | 'tool_use' | 'max_tokens';
}

/** The request cannot be answered by the script; the server answers 400 with this message. */
export class ScriptError extends Error {
  override readonly name = 'ScriptError';
}

/** What a tool result said. */
export interface ToolResult {
  readonly toolUseId: string;
  readonly text: string;
  readonly isError: boolean;
}

/** Where the conversation stands: the prompt of the last user turn, and tool results that answer it. */
export interface UserTurn {
  readonly prompt: string;
  /** Tool results in the last user message (empty on the first call of a turn). */
  readonly results: readonly ToolResult[];
  /** The prompts of earlier user turns, oldest first. */
  readonly earlierPrompts: readonly string[];
}

const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

/** The user's own words in a message: its text blocks, without system reminders, trimmed. */
export function promptText(message: MessageParam): string {
  const texts = typeof message.content === 'string' ? [message.content] : message.content.filter((b) => b.type === 'text').map((b) => b.text ?? '');
  return texts
    .map((t) => t.replace(REMINDER, '').trim())
    .filter((t) => t !== '')
    .join('\n');
}

function blocksOf(message: MessageParam): readonly ContentBlockParam[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** The text of a tool result's content (a string, or text blocks; other blocks are named). */
export function resultText(content: ContentBlockParam['content']): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`)).join('\n');
}

/**
 * Finds the last user turn. Messages that are neither `user` nor `assistant` (Claude Code appends a
 * `system` message after the user turn) and a trailing assistant prefill are skipped.
 */
export function lastUserTurn(messages: readonly MessageParam[]): UserTurn {
  const conversation = messages.filter((m) => m.role === 'user' || m.role === 'assistant');
  let last = conversation.length - 1;
  while (last >= 0 && conversation[last]!.role !== 'user') last--;
  if (last < 0) throw new ScriptError('the request has no user message');
  const results: ToolResult[] = blocksOf(conversation[last]!)
    .filter((b) => b.type === 'tool_result')
    .map((b) => ({ toolUseId: b.tool_use_id ?? '', text: resultText(b.content), isError: b.is_error === true }));
  const prompts = conversation.flatMap((m, index) => {
    if (m.role !== 'user' || blocksOf(m).some((b) => b.type === 'tool_result')) return [];
    const text = promptText(m);
    return text === '' ? [] : [{ index, text }];
  });
  const current = [...prompts].reverse().find((p) => p.index <= last);
  if (!current) throw new ScriptError('the last user turn has no text (only system reminders or tool results)');
  return { prompt: current.text, results, earlierPrompts: prompts.filter((p) => p.index < current.index).map((p) => p.text) };
}

// ---- tools -----------------------------------------------------------------------------------------

export type ToolPurpose = 'read' | 'write' | 'shell';

export interface ChosenTool {
  readonly name: string;
  /** Input property names the script fills: the path, the content, the command, a description. */
  readonly keys: { readonly path?: string; readonly content?: string; readonly command?: string; readonly description?: string };
}

const PATH_KEY = /^(file_?path|path|file|filename|file_?name|absolute_?path|target_?file|uri)$/i;
const CONTENT_KEY = /^(content|contents|text|data|file_?text|new_?content)$/i;
const NAMES: Record<ToolPurpose, RegExp> = {
  read: /read|view|cat|open/i,
  write: /write|create|save/i,
  shell: /bash|shell|terminal|exec|run|command/i,
};
/** Names that clearly mean something else, even if they contain a purpose word. */
const NOT: Record<ToolPurpose, RegExp> = {
  read: /write|edit|notebook|dir|list|search|grep|glob|web|url|fetch/i,
  write: /read|notebook|todo|task|plan|cron|worktree/i,
  shell: /output|stop|kill|cron|background/i,
};

function isString(schema: { readonly type?: string | readonly string[] } | undefined): boolean {
  if (!schema) return false;
  const type = schema.type;
  return type === undefined || type === 'string' || (Array.isArray(type) && type.includes('string'));
}

/**
 * Picks the tool for a purpose from the offered list, by name and input schema. Every required property
 * of the chosen tool must be one the script can fill. Prefers names that say just the purpose ("Read",
 * "read_file"), then fewer required properties.
 */
export function chooseTool(tools: readonly ToolParam[], purpose: ToolPurpose): ChosenTool | undefined {
  const candidates: Array<ChosenTool & { score: number }> = [];
  for (const tool of tools) {
    if (!NAMES[purpose].test(tool.name) || NOT[purpose].test(tool.name)) continue;
    const properties = tool.input_schema?.properties ?? {};
    const names = Object.keys(properties);
    const find = (pattern: RegExp) => names.find((n) => pattern.test(n) && isString(properties[n]));
    const keys = {
      path: find(PATH_KEY),
      content: find(CONTENT_KEY),
      command: find(/^(command|cmd|script)$/i),
      description: find(/^description$/i),
    };
    if (purpose !== 'shell' && !keys.path) continue;
    if (purpose === 'write' && !keys.content) continue;
    if (purpose === 'shell' && !keys.command) continue;
    const filled = new Set(purpose === 'read' ? [keys.path] : purpose === 'write' ? [keys.path, keys.content] : [keys.command, keys.description]);
    const required = tool.input_schema?.required ?? [];
    if (!required.every((r) => filled.has(r))) continue;
    const plain = new RegExp(`^(${NAMES[purpose].source})(_?file)?$`, 'i').test(tool.name) ? 0 : 1;
    candidates.push({
      name: tool.name,
      keys:
        purpose === 'read'
          ? { path: keys.path }
          : purpose === 'write'
            ? { path: keys.path, content: keys.content }
            : { command: keys.command, description: keys.description },
      score: plain * 100 + required.length,
    });
  }
  candidates.sort((a, b) => a.score - b.score);
  const best = candidates[0];
  return best && { name: best.name, keys: best.keys };
}

// ---- answers ---------------------------------------------------------------------------------------

/** Splits text into chunks of a few words (whitespace kept), so an answer streams in several deltas. */
export function chunk(text: string, wordsPerChunk = 3): string[] {
  const words = text.match(/\S+\s*/g) ?? [text];
  const lead = /^\s*/.exec(text)?.[0] ?? '';
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk) chunks.push(words.slice(i, i + wordsPerChunk).join(''));
  if (lead && chunks.length > 0) chunks[0] = lead + chunks[0];
  return chunks.length > 0 ? chunks : [''];
}

function text(scenario: string, body: string): Reply {
  return { scenario, blocks: [{ type: 'text', chunks: chunk(body) }], stopReason: 'end_turn' };
}

/** The streamed answer to a prompt without a keyword (markdown, so a client has something to render). */
export function plainAnswer(prompt: string): string {
  return `You said: "${prompt}".\n\nThis **scripted** answer arrives in several small chunks, the way a real model streams its text.`;
}

const VERBS = /^(read|write|bash)\s+(\S+)(?:\s+([\s\S]*))?$/i;

/** Decides the answer to one Messages API request. Throws {@link ScriptError} when it cannot. */
export function scriptReply(request: MessagesRequest, toolUseId: () => string): Reply {
  if (!Array.isArray(request.messages)) throw new ScriptError('the request has no messages array');
  const tools = request.tools ?? [];
  if (tools.length === 0) return sideReply(request);

  const turn = lastUserTurn(request.messages);
  const verb = VERBS.exec(turn.prompt);
  if (!verb) {
    if (/^history$/i.test(turn.prompt)) {
      return text(
        'history',
        turn.earlierPrompts.length > 0 ? `Earlier prompts: ${turn.earlierPrompts.map((p) => `"${p}"`).join(', ')}.` : 'There are no earlier prompts.',
      );
    }
    return text('text', plainAnswer(turn.prompt));
  }
  const action = verb[1]!.toLowerCase();
  const target = verb[2]!;
  const rest = verb[3] ?? '';
  if (turn.results.length > 0) return afterTool(action, target, turn.results);

  const purpose: ToolPurpose = action === 'bash' ? 'shell' : (action as ToolPurpose);
  const tool = chooseTool(tools, purpose);
  if (!tool) {
    throw new ScriptError(`"${turn.prompt}" needs a ${purpose} tool, but none of the offered tools fits: ${tools.map((t) => t.name).join(', ')}`);
  }
  const input: Record<string, unknown> = {};
  if (purpose === 'read') input[tool.keys.path!] = target;
  if (purpose === 'write') {
    input[tool.keys.path!] = target;
    input[tool.keys.content!] = rest.endsWith('\n') ? rest : `${rest}\n`;
  }
  if (purpose === 'shell') {
    input[tool.keys.command!] = rest ? `${target} ${rest}` : target;
    if (tool.keys.description) input[tool.keys.description] = 'Run the scripted command';
  }
  return {
    scenario: action,
    blocks: [
      { type: 'text', chunks: [`I will ${action === 'bash' ? 'run' : action} ${action === 'bash' ? 'that command' : target}.`] },
      { type: 'tool_use', id: toolUseId(), name: tool.name, input },
    ],
    stopReason: 'tool_use',
  };
}

function afterTool(action: string, target: string, results: readonly ToolResult[]): Reply {
  const result = results[results.length - 1]!;
  const scenario = `${action}:result`;
  if (result.isError) return text(scenario, `The ${action} of ${target} did not happen: ${result.text}`);
  if (action === 'read') return text(scenario, `I read ${target}. It says:\n\n${result.text}`);
  if (action === 'write') return text(scenario, `Wrote ${target}.`);
  return text(scenario, `The command printed:\n\n${result.text}`);
}

/** Answers the side requests an agent makes besides the conversation (no tools offered). */
function sideReply(request: MessagesRequest): Reply {
  const system = typeof request.system === 'string' ? request.system : (request.system ?? []).map((b) => b.text ?? '').join('\n');
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
  const words = `${system}\n${lastUser ? promptText(lastUser) : ''}`;
  if ((request.max_tokens ?? Infinity) <= 1) return { scenario: 'side:quota', blocks: [{ type: 'text', chunks: ['o'] }], stopReason: 'max_tokens' };
  if (/title/i.test(words)) return text('side:title', /json/i.test(words) ? '{"title": "Scripted session"}' : 'Scripted session');
  if (/summar/i.test(words)) return text('side:summary', 'A scripted conversation.');
  return text('side:other', 'OK');
}
