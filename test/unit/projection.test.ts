import { assert, describe, it } from "@effect/vitest"
import { inspectTail } from "../../src/domain/boundary.ts"
import type { BranchEntry } from "../../src/domain/entries.ts"
import { projectRequest } from "../../src/domain/projection.ts"
import { isEnabled } from "../../src/domain/enabled.ts"

interface Msg {
  readonly role: string
  readonly customType?: string
  readonly details?: unknown
  readonly text: string
}
const system = (text: string): Msg => ({ role: "system", text })
const user = (text: string): Msg => ({ role: "user", text })
const boot = (windowId: string, text = `boot ${windowId}`): Msg => ({ role: "custom", customType: "pi-context/boot", details: { windowId }, text })
const texts = (messages: ReadonlyArray<Msg>) => messages.map((m) => m.text)

describe("projection", () => {
  it("starts a reset window at its boot, keeping only the newest system prompt from before it", () => {
    const messages = [system("old prompt"), user("erased"), system("current prompt"), user("erased too"), boot("w2"), user("after"), system("later patch"), user("last")]
    const projection = projectRequest(messages, { id: "w2", isRoot: false })
    assert.strictEqual(projection._tag, "Projected")
    if (projection._tag === "Projected") {
      assert.deepStrictEqual(texts(projection.messages), ["current prompt", "boot w2", "after", "later patch", "last"])
    }
  })

  it("finds the boot by details.windowId, never by position or text", () => {
    const messages = [system("p"), boot("w1", "same text"), user("window one"), boot("w2", "same text"), user("window two")]
    assert.strictEqual(projectRequest(messages, { id: "w1", isRoot: false })._tag, "Unchanged")
    const second = projectRequest(messages, { id: "w2", isRoot: false })
    assert.strictEqual(second._tag, "Projected")
    if (second._tag === "Projected") assert.deepStrictEqual(texts(second.messages), ["p", "same text", "window two"])
  })

  it("fails closed when the window's boot is missing: only the system prompt, never raw history", () => {
    const projection = projectRequest([system("p"), user("secret"), boot("other")], { id: "w9", isRoot: false })
    assert.strictEqual(projection._tag, "MissingBoot")
    if (projection._tag === "MissingBoot") assert.deepStrictEqual(texts(projection.safeHead), ["p"])
  })

  it("leaves a request that already starts at the boot unchanged", () => {
    assert.strictEqual(projectRequest([system("p"), boot("w2"), user("u")], { id: "w2", isRoot: false })._tag, "Unchanged")
  })

  it("in the root window keeps history and replaces a boot copied from a parent session with its own, in place", () => {
    const messages = [system("p"), boot("parent-root"), user("copied"), boot("own-root"), user("mine")]
    const projection = projectRequest(messages, { id: "own-root", isRoot: true })
    assert.strictEqual(projection._tag, "Projected")
    if (projection._tag === "Projected") assert.deepStrictEqual(texts(projection.messages), ["p", "boot own-root", "copied", "mine"])
    assert.strictEqual(projectRequest([system("p"), boot("own-root"), user("u")], { id: "own-root", isRoot: true })._tag, "Unchanged")
    assert.strictEqual(projectRequest([system("p"), user("u")], { id: "own-root", isRoot: true })._tag, "Unchanged")
  })
})

const at = (tag: BranchEntry["_tag"], fields: Record<string, unknown> = {}) => ({ _tag: tag, id: "x", timestamp: "t", ...fields }) as BranchEntry
const marker = (windowId = "w") => at("Marker", { windowId })
const bootEntry = (windowId = "w") => at("Boot", { windowId })
const meta = at("Metadata", { type: "model_change" })
const message = at("Message", { role: "user" })

describe("start-up repair inspection", () => {
  it("completes a marker followed only by metadata, then a boot-only tail", () => {
    assert.deepStrictEqual(inspectTail([marker(), meta]), { _tag: "Repair", windowId: "w", missing: ["boot", "continuation"] })
    assert.deepStrictEqual(inspectTail([marker(), meta, bootEntry(), meta]), { _tag: "Repair", windowId: "w", missing: ["continuation"] })
  })

  it("accepts a whole boundary, with any later work", () => {
    assert.deepStrictEqual(inspectTail([marker(), bootEntry(), at("Continuation"), message]), { _tag: "Complete" })
  })

  it("refuses real conversation, foreign entries, duplicates, another window's boot and misorder", () => {
    for (const tail of [
      [marker(), message],
      [marker(), at("Foreign", { reason: "bad" })],
      [marker(), bootEntry(), bootEntry()],
      [marker(), bootEntry("other")],
      [marker(), at("Continuation"), bootEntry()],
      [marker(), bootEntry(), message],
      [marker(), at("Compaction", { summary: "" })],
      [marker(), at("BranchSummary")]
    ]) {
      assert.strictEqual(inspectTail(tail)._tag, "Refuse", JSON.stringify(tail))
    }
  })

  it("has nothing to do without a marker", () => {
    assert.deepStrictEqual(inspectTail([message]), { _tag: "NoMarker" })
  })
})

describe("enabled", () => {
  it("enabled follows the last state entry on the branch, else the setting", () => {
    assert.isTrue(isEnabled([message], true))
    assert.isFalse(isEnabled([at("State", { enabled: false })], true))
    assert.isTrue(isEnabled([at("State", { enabled: false }), at("State", { enabled: true })], false))
  })
})

describe("continuation", () => {
  it("carries the pending request over every reset, cut at a stated length; an automatic reset carries the digest instead", async () => {
    const { continuationFor, continuationText, CarriedRequestLimit } = await import("../../src/domain/boundary.ts")
    assert.strictEqual(continuationFor({ pending: undefined, digest: undefined }), continuationText)
    assert.strictEqual(continuationFor({ pending: "   ", digest: undefined }), continuationText)
    assert.isTrue(continuationFor({ pending: "fix the login bug", digest: undefined }).endsWith("take it up now:\n\nfix the login bug"))
    const long = "é".repeat(CarriedRequestLimit + 10)
    const carried = continuationFor({ pending: long, digest: undefined })
    assert.include(carried, `${"é".repeat(CarriedRequestLimit)}\n[… 10 more characters; find the message with history_search`)
    const automatic = continuationFor({ pending: "fix the login bug", digest: "## Pending request\nfix the login bug" })
    assert.isTrue(automatic.startsWith(continuationText))
    assert.include(automatic, "This reset was automatic")
    // The digest quotes the pending request itself: it is not carried twice.
    assert.strictEqual(automatic.split("fix the login bug").length - 1, 1)
    // An empty digest (nothing to say) falls back to the pending request.
    assert.include(continuationFor({ pending: "fix it", digest: "" }), "take it up now:\n\nfix it")
  })

  it("reads a user message's text from a raw entry, and nothing from other entries", async () => {
    const { userMessageText } = await import("../../src/domain/entries.ts")
    const entry = (message: unknown) => ({ type: "message", id: "a", parentId: null, timestamp: "", message })
    assert.strictEqual(userMessageText(entry({ role: "user", content: "plain" })), "plain")
    assert.strictEqual(userMessageText(entry({ role: "user", content: [{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }] })), "a\nb")
    assert.isUndefined(userMessageText(entry({ role: "assistant", content: "no" })))
    assert.isUndefined(userMessageText({ type: "custom", id: "b", parentId: null, timestamp: "" }))
  })
})
