import { assert, describe, it } from "@effect/vitest"
import { type BranchEntry, classifyEntry, type RawEntry } from "../../src/kernel/entries.ts"
import { CustomType } from "../../src/kernel/protocol.ts"
import { carriesSystemPrompt, nextRequestTokens } from "../../src/window/contextMessages.ts"
import { requestUsage } from "../../src/window/usage.ts"

const windowId = "pcx:s:2"
/** Entries in order, each the child of the one before. */
const entriesOf = (...fields: ReadonlyArray<Record<string, unknown> & { readonly type: string }>): ReadonlyArray<RawEntry> =>
  fields.map((entry, i) => ({ ...entry, id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, timestamp: "" }))
/** `tokens` tokens of text by Pi's chars/4. */
const text = (tokens: number) => "x".repeat(tokens * 4)
const system = (tokens: number) => ({ type: "message", message: { role: "system", content: text(tokens) } })
const user = (tokens: number) => ({ type: "message", message: { role: "user", content: text(tokens) } })
const reply = (tokens: number) => ({ type: "message", message: { role: "assistant", content: [{ type: "text", text: text(tokens) }] } })
const marker = { type: "custom", customType: CustomType.resetMarker, data: { windowId, source: "command" } }
const boot = { type: "custom_message", customType: CustomType.boot, content: text(300), display: false, details: { windowId } }
const continuation = { type: "custom_message", customType: CustomType.continuation, content: text(50), display: false }

const windowOf = (entries: ReadonlyArray<RawEntry>) => {
  const start = entries.findIndex((entry) => entry.type === "custom")
  return { id: windowId, isRoot: false, tail: entries.slice(start).map(classifyEntry) as ReadonlyArray<BranchEntry> }
}

describe("the next request, estimated from the branch", () => {
  it("is the newest system prompt, the boot, the continuation and what follows: nothing of the ended window", () => {
    const entries = entriesOf(system(1_000), user(5_000), reply(9_000), system(700), user(2_000), marker, boot, continuation, user(10))
    assert.strictEqual(nextRequestTokens(entries.slice(3), windowOf(entries)), 700 + 300 + 50 + 10)
  })

  it("takes the system prompt a compaction recorded, not its summary", () => {
    const compaction = { type: "compaction", summary: text(80), firstKeptEntryId: null, systemMessage: { role: "system", content: text(600) } }
    const entries = entriesOf(user(5_000), compaction, marker, boot, continuation)
    assert.isTrue(carriesSystemPrompt(entries[1]!))
    assert.strictEqual(nextRequestTokens(entries.slice(1), windowOf(entries)), 600 + 300 + 50)
  })

  it("is unknown for a window whose boot is missing", () => {
    const entries = entriesOf(system(100), marker, continuation)
    assert.strictEqual(nextRequestTokens(entries, windowOf(entries)), undefined)
  })
})

describe("requestUsage", () => {
  it("is an estimate until a reply in the request reported its usage", () => {
    const messages = [{ role: "custom", customType: CustomType.boot, content: text(300), details: { windowId } }]
    assert.deepStrictEqual(requestUsage(messages, { isRoot: false }, 32_000), { tokens: 300, contextWindow: 32_000, estimated: true })
    const replied = [...messages, { role: "assistant", content: [], stopReason: "stop", usage: { totalTokens: 900 } }, { role: "user", content: text(20) }]
    assert.deepStrictEqual(requestUsage(replied, { isRoot: false }, 32_000), { tokens: 920, contextWindow: 32_000 })
  })
})
