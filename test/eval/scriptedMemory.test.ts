import { assert, describe, it } from "@effect/vitest"
import { type Message, normalizeContext, type ToolCall, type TranscriptContext } from "@earendil-works/pi-ai"
import { maskOldResults } from "../../eval/masking/extension.ts"
import { BlockedAfter, scriptedAgent } from "../../eval/scripted/agent.ts"
import { logClue } from "../../eval/tasks/log-clue/task.ts"

const agent = scriptedAgent(logClue.solver)
const opening = logClue.messages(1)[0]!.text
const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 })
const context = (...messages: ReadonlyArray<Message>): TranscriptContext => normalizeContext({ systemPrompt: "You are Pi.", messages: [...messages] })
let ids = 0
const call = (name: string, args: Record<string, unknown>, text = ""): Message =>
  ({
    role: "assistant",
    content: [...(text === "" ? [] : [{ type: "text", text }]), { type: "toolCall", id: `c${++ids}`, name, arguments: args }],
    stopReason: "toolUse",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    api: "x",
    provider: "x",
    model: "x",
    timestamp: 0
  }) as unknown as Message
const result = (name: string, text: string, isError = false): Message =>
  ({ role: "toolResult", toolCallId: `c${ids}`, toolName: name, content: [{ type: "text", text }], isError, timestamp: 0 }) as unknown as Message
const textOf = (reply: ReturnType<typeof agent>) => reply.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n")
const callsOf = (reply: ReturnType<typeof agent>) => reply.content.filter((part): part is ToolCall => part.type === "toolCall")

describe("the scripted agent's memory, the same in every arm", () => {
  it("reads the log's length from Pi 1.6's paged read note, and stops at its end instead of reading past it", () => {
    const page = (offset: number, remaining: number) => `line\n\n[${remaining} more lines in file. Use offset=${offset + 200} to continue.]`
    const reply = agent(context(
      user(opening),
      call("read", { path: "logs/nightly.log", offset: 1, limit: 200 }, "Step: page:1."),
      result("read", page(1, 200)),
      call("read", { path: "logs/nightly.log", offset: 201, limit: 200 }, "Step: page:201."),
      result("read", page(201, 0).replace("[0 more lines in file. Use offset=401 to continue.]", ""))
    ))
    // 400 lines in all (offset 201 + 200 remaining - 1): every page is read, so the next step is the fix, not page 401.
    assert.notDeepInclude(callsOf(reply).map((part) => part.arguments), { path: "logs/nightly.log", offset: 401, limit: 200 })
    const afterFirstPage = agent(context(user(opening), call("read", { path: "logs/nightly.log", offset: 1, limit: 200 }, "Step: page:1."), result("read", page(1, 200))))
    assert.include(textOf(afterFirstPage), "- fact log.lines = \"400\"")
  })

  it("says what it learned from each result in its reply, so a summary, a masked context or its notes all keep it", () => {
    const reply = agent(context(
      user(opening),
      call("read", { path: "logs/nightly.log", offset: 1, limit: 200 }, "Step: page:1."),
      result("read", "2026 WARN  config   \"pool_size\" = \"4x\" is not a number; using 0\n\n[3700 more lines in file. Use offset=201 to continue.]")
    ))
    assert.match(textOf(reply), /^Learned:\n/)
    assert.include(textOf(reply), "- fact log.clueKey = \"pool_size\"")
    // What it said is what it knows: with the result masked away, its own words still carry the clue.
    const masked = agent(context(...maskOldResults([
      user(opening),
      call("read", { path: "logs/nightly.log", offset: 1, limit: 200 }, "Step: page:1."),
      result("read", "2026 WARN  config   \"pool_size\" = \"4x\" is not a number; using 0\n\n[3700 more lines in file. Use offset=201 to continue.]"),
      { ...reply, role: "assistant", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, api: "x", provider: "x", model: "x", timestamp: 0 } as unknown as Message,
      result("read", "x\n\n[3500 more lines in file. Use offset=401 to continue.]")
    ], 1)))
    assert.notInclude(textOf(masked), "pool_size")
    assert.deepStrictEqual(callsOf(masked).map((part) => part.arguments), [{ path: "logs/nightly.log", offset: 401, limit: 200 }])
  })

  it(`gives up after ${BlockedAfter} identical failing calls, saying it is blocked`, () => {
    const failing = () => [call("read", { path: "logs/nightly.log", offset: 4001, limit: 200 }), result("read", "Offset 4001 is beyond end of file (3896 lines total)", true)]
    const twice = agent(context(user(opening), ...failing(), ...failing()))
    assert.strictEqual(twice.stopReason, "toolUse")
    const thrice = agent(context(user(opening), ...failing(), ...failing(), ...failing()))
    assert.strictEqual(thrice.stopReason, "stop")
    assert.match(textOf(thrice), /I am blocked: read .* failed 3 times in a row: Offset 4001 is beyond end of file/)
  })
})

describe("the masking arm", () => {
  it("masks tool results before the last N turns, and past the kept-token budget, keeping every message and call", () => {
    const messages = [
      { role: "user", content: "go" },
      { role: "assistant", content: [] },
      { role: "toolResult", toolName: "read", content: [{ type: "text", text: "a".repeat(400) }] },
      { role: "assistant", content: [] },
      { role: "toolResult", toolName: "read", content: [{ type: "text", text: "b".repeat(400) }] },
      { role: "assistant", content: [] },
      { role: "toolResult", toolName: "bash", content: [{ type: "text", text: "c".repeat(400) }] }
    ]
    const shown = (masked: ReadonlyArray<{ content: unknown }>) => masked.map((message) => JSON.stringify(message.content))
    const byTurns = maskOldResults(messages, 2)
    assert.strictEqual(byTurns.length, messages.length)
    assert.include(shown(byTurns)[2], "[Old read result omitted to save context.]")
    assert.include(shown(byTurns)[4], "bbbb")
    assert.include(shown(byTurns)[6], "cccc")
    // 100 tokens each: a budget of 150 keeps the newest result only.
    const byTokens = maskOldResults(messages, 10, 150)
    assert.include(shown(byTokens)[4], "[Old read result omitted")
    assert.include(shown(byTokens)[6], "cccc")
  })
})
