/**
 * The script of the scripted OpenAI Responses API server (`openaiModelServer.ts`): reads a `POST /v1/responses`
 * request as Codex sends it and decides the answer. Pure functions, no I/O, unit-tested on their own.
 *
 * Codex sends the whole conversation in `input` every time (`store: false`): `message` items (roles
 * `developer`, `user`, `assistant`), `function_call` items it made and the `function_call_output` items
 * that answer them, `reasoning` items. It also sends context as user messages that are one XML-like
 * block (`<environment_context>…</environment_context>`, AGENTS.md instructions): those are not prompts.
 *
 * | prompt | first answer | after the command's output comes back |
 * |---|---|---|
 * | `bash <command>` | a short message and a `function_call` of the offered shell tool | "The command printed: …" (its output quoted) |
 * | `history` | "Earlier prompts: …" | — |
 * | anything else | a markdown answer, streamed in several deltas | — |
 *
 * A request without tools is a side request (a title: `{"title": "Scripted session"}`; anything else: "OK").
 *
 * The shell tool is never assumed by name: it is a `function` tool whose name says exec/shell/command and
 * whose parameters have a string `cmd` or `command` (or an array `command`, filled with `["sh", "-c", …]`),
 * and whose other required parameters are none.
 */
import { chunk, plainAnswer, ScriptError } from './modelScript';

/** The parts of a Responses API request the script looks at. */
export interface ResponsesRequest {
  readonly model?: string;
  readonly stream?: boolean;
  readonly input?: readonly InputItem[];
  readonly tools?: readonly ResponsesTool[];
}

export interface InputItem {
  readonly type?: string;
  readonly role?: string;
  readonly content?: string | ReadonlyArray<{ readonly type?: string; readonly text?: string }>;
  readonly name?: string;
  readonly arguments?: string;
  readonly call_id?: string;
  readonly output?: string | ReadonlyArray<{ readonly type?: string; readonly text?: string }>;
}

export interface ResponsesTool {
  readonly type: string;
  readonly name?: string;
  readonly parameters?: {
    readonly properties?: Readonly<Record<string, { readonly type?: string | readonly string[] } | undefined>>;
    readonly required?: readonly string[];
  };
}

/** One output item of the answer: a message (streamed in the given chunks) or a function call. */
export type ResponseOutput =
  | { readonly type: 'message'; readonly chunks: readonly string[] }
  | { readonly type: 'function_call'; readonly callId: string; readonly name: string; readonly arguments: Readonly<Record<string, unknown>> };

export interface ResponseReply {
  /** `bash`, `bash:result`, `history`, `text`, or `side:title` / `side:other` (a request with no tools). */
  readonly scenario: string;
  readonly output: readonly ResponseOutput[];
}

/** Where the conversation stands: the last prompt, the outputs of calls made since, the earlier prompts. */
export interface ResponsesTurn {
  readonly prompt: string;
  /** The text of every `function_call_output` after the prompt, oldest first. */
  readonly results: readonly string[];
  readonly earlierPrompts: readonly string[];
}

/** A user message that is one XML-like block is context the agent added, not something the user typed. */
const CONTEXT_BLOCK = /^<([A-Za-z_][\w-]*)[^>]*>[\s\S]*<\/\1>$/;

function contentText(content: InputItem['content'] | InputItem['output']): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('');
}

/** The user's prompt in a `message` item, or undefined when it is not one (another role, agent context). */
export function promptOf(item: InputItem): string | undefined {
  if ((item.type ?? 'message') !== 'message' || item.role !== 'user') return undefined;
  const text = contentText(item.content).trim();
  if (text === '' || CONTEXT_BLOCK.test(text) || /^# AGENTS\.md instructions/.test(text)) return undefined;
  return text;
}

/** Finds the last prompt and the tool outputs that came after it. */
export function lastPrompt(input: readonly InputItem[]): ResponsesTurn {
  const prompts: Array<{ index: number; text: string }> = [];
  input.forEach((item, index) => {
    const text = promptOf(item);
    if (text !== undefined) prompts.push({ index, text });
  });
  const current = prompts.at(-1);
  if (!current) throw new ScriptError('the request has no user prompt (only context and tool outputs)');
  const results = input.slice(current.index + 1).flatMap((item) => (item.type === 'function_call_output' ? [contentText(item.output)] : []));
  return { prompt: current.text, results, earlierPrompts: prompts.slice(0, -1).map((p) => p.text) };
}

export interface ChosenShell {
  readonly name: string;
  readonly key: string;
  /** Whether the command is an argv array (`["sh", "-c", command]`) rather than one string. */
  readonly argv: boolean;
}

/** Picks the shell tool from the offered `function` tools, by name and parameters (see the file's comment). */
export function chooseShell(tools: readonly ResponsesTool[]): ChosenShell | undefined {
  for (const tool of tools) {
    if (tool.type !== 'function' || !tool.name || !/exec|shell|command|bash/i.test(tool.name) || /stdin|output|kill|stop/i.test(tool.name)) continue;
    const properties = tool.parameters?.properties ?? {};
    const key = Object.keys(properties).find((name) => /^(cmd|command)$/.test(name));
    if (!key) continue;
    const type = properties[key]?.type;
    const argv = type === 'array' || (Array.isArray(type) && type.includes('array') && !type.includes('string'));
    if ((tool.parameters?.required ?? []).some((r) => r !== key)) continue;
    return { name: tool.name, key, argv };
  }
  return undefined;
}

function text(scenario: string, body: string): ResponseReply {
  return { scenario, output: [{ type: 'message', chunks: chunk(body) }] };
}

const BASH = /^bash\s+([\s\S]+)$/i;

/** Decides the answer to one Responses API request. Throws {@link ScriptError} when it cannot. */
export function scriptResponse(request: ResponsesRequest, callId: () => string): ResponseReply {
  if (!Array.isArray(request.input)) throw new ScriptError('the request has no input array');
  const tools = request.tools ?? [];
  if (tools.length === 0) return sideResponse(request.input);
  const turn = lastPrompt(request.input);
  const bash = BASH.exec(turn.prompt);
  if (!bash) {
    if (/^history$/i.test(turn.prompt)) {
      return text(
        'history',
        turn.earlierPrompts.length > 0 ? `Earlier prompts: ${turn.earlierPrompts.map((p) => `"${p}"`).join(', ')}.` : 'There are no earlier prompts.',
      );
    }
    return text('text', plainAnswer(turn.prompt));
  }
  if (turn.results.length > 0) return text('bash:result', `The command printed:\n\n${turn.results.at(-1)!}`);
  const shell = chooseShell(tools);
  if (!shell) {
    throw new ScriptError(`"${turn.prompt}" needs a shell tool, but none of the offered tools fits: ${tools.map((t) => t.name ?? t.type).join(', ')}`);
  }
  const command = bash[1]!;
  return {
    scenario: 'bash',
    output: [
      { type: 'message', chunks: ['I will run that command.'] },
      { type: 'function_call', callId: callId(), name: shell.name, arguments: { [shell.key]: shell.argv ? ['sh', '-c', command] : command } },
    ],
  };
}

/**
 * A request that offers no tools is one of the agent's side requests. Codex 0.166 asks for a session title
 * after the first prompt (model `gpt-5.6-luna`, a read-only turn, "Return exactly one JSON object … {"title":
 * …}"); it gets a JSON title. Anything else gets "OK".
 */
function sideResponse(input: readonly InputItem[]): ResponseReply {
  const words = input.map((item) => contentText(item.content)).join('\n');
  if (/title/i.test(words)) return text('side:title', /json/i.test(words) ? '{"title": "Scripted session"}' : 'Scripted session');
  return text('side:other', 'OK');
}
