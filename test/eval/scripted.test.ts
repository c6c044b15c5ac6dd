import { assert, describe, it } from "@effect/vitest"
import { type Message, normalizeContext, type ToolCall, type TranscriptContext } from "@earendil-works/pi-ai"
import { scriptedAgent } from "../../eval/scripted/agent.ts"
import { estimateTokens, requestText } from "../../eval/scripted/provider.ts"
import { defaultStandIn } from "../../eval/scripted/standIn.ts"
import { renameSymbol } from "../../eval/tasks/rename-symbol/task.ts"

const opening = renameSymbol.messages(1)[0]!.text
const agent = scriptedAgent(renameSymbol.solver)
const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 })
const context = (system: string, ...messages: ReadonlyArray<Message>): TranscriptContext => normalizeContext({ systemPrompt: system, messages: [...messages] })
const assistantCalls = (...calls: ReadonlyArray<{ name: string; args: Record<string, unknown> }>): Message =>
  ({
    role: "assistant",
    content: calls.map((call, index) => ({ type: "toolCall", id: `c${index}`, name: call.name, arguments: call.args })),
    api: "x",
    provider: "x",
    model: "x",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "toolUse",
    timestamp: 0
  }) as unknown as Message
const result = (name: string, text: string, index = 0): Message =>
  ({ role: "toolResult", toolCallId: `c${index}`, toolName: name, content: [{ type: "text", text }], isError: false, timestamp: 0 }) as unknown as Message
const callsOf = (reply: ReturnType<typeof agent>) => reply.content.filter((part): part is ToolCall => part.type === "toolCall")

describe("the scripted agent", () => {
  it("answers the same request with the same reply, tool call ids included", () => {
    const request = context("You are Pi.", user(opening))
    assert.deepStrictEqual(agent(request), agent(structuredClone(request)))
    assert.deepStrictEqual(callsOf(agent(request)).map((call) => call.name), ["bash"])
  })

  it("works from what the request shows: with the file list and a file's text in view, it edits the file it read (as Pi's prompt asks), or writes it whole as the write variant", () => {
    const request = context(
      "You are Pi.",
      user(opening),
      assistantCalls({ name: "bash", args: { command: "grep -rl loadCustomer . --include=*.js --include=*.mjs --include=*.md | sort" } }),
      result("bash", "./src/a.js\n./src/b.js\n"),
      assistantCalls({ name: "read", args: { path: "src/a.js" } }),
      result("read", "import { loadCustomer } from './users.js'\nloadCustomer(1)\n")
    )
    const [edit] = callsOf(agent(request))
    assert.strictEqual(edit?.name, "edit")
    assert.deepStrictEqual(edit?.arguments, { path: "src/a.js", edits: [{ oldText: "import { loadCustomer } from './users.js'\nloadCustomer(1)\n", newText: "import { readClient } from './users.js'\nreadClient(1)\n" }] })
    const [write] = callsOf(scriptedAgent(renameSymbol.solver, { ...defaultStandIn, changes: "write" })(request))
    assert.strictEqual(write?.name, "write")
    assert.deepStrictEqual(write?.arguments, { path: "src/a.js", content: "import { readClient } from './users.js'\nreadClient(1)\n" })
  })

  it("after pi-context's final warning it writes its checkpoint and MAP and calls wipe_memory in one batch", () => {
    const reply = agent(context(
      "You are Pi.",
      user(opening),
      assistantCalls({ name: "bash", args: { command: "grep -rl loadCustomer ." } }),
      result("bash", "./src/a.js\n"),
      { ...assistantCalls({ name: "read", args: { path: "src/a.js" } }), content: [{ type: "text", text: "Step: write:src/x.js." }, { type: "toolCall", id: "c0", name: "read", arguments: { path: "src/a.js" } }] } as unknown as Message,
      result("read", "loadCustomer()\n"),
      { ...assistantCalls({ name: "read", args: { path: "src/b.js" } }), content: [{ type: "text", text: "Step: write:src/y.js." }, { type: "toolCall", id: "c0", name: "read", arguments: { path: "src/b.js" } }] } as unknown as Message,
      result("read", "x\n"),
      user("[pi-context] Final context warning: about 9,000 tokens remain before pi-context resets this window automatically.")
    ))
    const calls = callsOf(reply)
    assert.deepStrictEqual(calls.map((call) => call.name), ["notes_write", "notes_write", "wipe_memory"])
    const note = String((calls[0]!.arguments as { content: string }).content)
    assert.include(note, '- fact rename.from = "loadCustomer"')
    assert.include(note, "- done write:src/x.js write:src/y.js")
  })

  it("in a fresh window it knows only its boot: it reads its checkpoint first, then resumes from the facts it holds", () => {
    const boot = user("## Context window\nCurrent window: w2\nYour working memory was reset at the start of this window.")
    const first = agent(context("You are Pi.", boot, user("Your context window was just reset.")))
    assert.deepStrictEqual(callsOf(first).map((call) => [call.name, call.arguments]), [["notes_read", { address: "checkpoint" }]])
    const resumed = agent(context(
      "You are Pi.",
      boot,
      user("Your context window was just reset."),
      assistantCalls({ name: "notes_read", args: { address: "checkpoint" } }),
      result("notes_read", '# Checkpoint\n- fact rename.from = "loadCustomer"\n- fact rename.to = "readClient"\n- fact rename.files = "src/a.js,src/b.js"\n- done write:src/a.js\n')
    ))
    assert.deepStrictEqual(callsOf(resumed).map((call) => [call.name, call.arguments]), [["read", { path: "src/b.js" }]])
  })

  it("asked by Pi to summarise, it writes its state from the conversation it is shown", () => {
    const prompt = "<conversation>\n[User]: " + opening + "\n\n[Assistant]: Step: write:src/a.js.\n\n[Assistant tool calls]: write(path=\"src/a.js\", content=\"x\")\n\n[Tool result]: ok\n</conversation>\n\nCreate a structured context checkpoint summary."
    const reply = agent(context("You are a context summarization assistant. Your task is to read a conversation", user(prompt)))
    const text = reply.content.map((part) => (part.type === "text" ? part.text : "")).join("")
    assert.strictEqual(reply.stopReason, "stop")
    assert.include(text, '- fact rename.from = "loadCustomer"')
    assert.include(text, "- done write:src/a.js")
  })

  it("reports usage counted from the request's own text, four characters a token", () => {
    const request = context("You are Pi.", user(opening))
    assert.strictEqual(estimateTokens(requestText(request)), Math.ceil(requestText(request).length / 4))
    assert.include(requestText(request), opening)
    assert.include(requestText(request), "You are Pi.")
  })
})
