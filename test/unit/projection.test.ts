import { assert, describe, it } from "@effect/vitest"
import type { BranchEntry } from "../../src/kernel/entries.ts"
import { getCurrentSystemMessage } from "@earendil-works/pi-ai"
import { projectRequest } from "../../src/window/projection.ts"
import { enabledOnBranch } from "../../src/window/onOff.ts"
import { inspectBranch, inspectTail } from "../../src/window/tail.ts"

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

const at = (tag: BranchEntry["_tag"], fields: Record<string, unknown> = {}) => ({ _tag: tag, id: "x", timestamp: "t", ...fields }) as BranchEntry
const marker = (windowId = "w") => at("Marker", { windowId })
const bootEntry = (windowId = "w") => at("Boot", { windowId })
const meta = at("Metadata", { type: "model_change" })
const message = at("Message", { role: "user" })
const continuation = at("Continuation")
/** A reset window whose branch tail is `tail` (default: a complete boundary, then work). */
const reset = (id: string, tail: ReadonlyArray<BranchEntry> = [marker(id), bootEntry(id), continuation, message]) => ({ id, isRoot: false, tail })
const root = (id: string) => ({ id, isRoot: true, tail: [message] })
/** A classified branch cut into windows at each marker, as the Window room hands them over. */
const windowsOf = (branch: ReadonlyArray<BranchEntry>) =>
  branch.reduce<Array<{ tail: Array<BranchEntry> }>>((windows, entry) => {
    if (entry._tag === "Marker") windows.push({ tail: [entry] })
    else windows.at(-1)!.tail.push(entry)
    return windows
  }, [{ tail: [] }])

describe("projection", () => {
  it("puts each committed reminder back before the reply of the turn whose request carried it", () => {
    const reminder = (kind: "guidance" | "warning"): Msg => ({ role: "custom", customType: `pi-context/${kind}`, text: kind })
    const assistant = (text: string): Msg => ({ role: "assistant", text })
    const tool = (text: string): Msg => ({ role: "toolResult", text })
    const other: Msg = { role: "custom", customType: "other/draft", text: "other" }
    // Pi's order: a turn's reply and tool results, then what its turn_end committed.
    const messages = [system("p"), boot("w2"), user("task"), assistant("call"), tool("result"), other, reminder("guidance"), assistant("done"), user("more"), assistant("final"), reminder("warning")]
    const projection = projectRequest(messages, reset("w2"))
    assert.strictEqual(projection._tag, "Projected")
    if (projection._tag === "Projected") {
      assert.deepStrictEqual(texts(projection.messages), ["p", "boot w2", "task", "guidance", "call", "result", "other", "done", "more", "warning", "final"])
    }
    // A reminder that follows no reply of its own turn stays where it is; nothing moved is nothing projected.
    assert.strictEqual(projectRequest([boot("root"), user("task"), reminder("guidance")], root("root"))._tag, "Unchanged")
  })

  it("starts a reset window at its boot, led by Pi's system messages from before it replayed into one, as Pi would send them", () => {
    const tool = (name: string) => ({ name, description: name, parameters: {} })
    const base = { role: "system", content: "base prompt", sections: { skills: "s1", cwd: "/a" }, toolsAdded: [tool("read"), tool("bash")], timestamp: 1 }
    const patch = { role: "system", content: "", sections: { cwd: "/b", skills: null }, toolsAdded: [tool("history_read")], toolsRemoved: [tool("bash")], timestamp: 2 }
    const later = { role: "system", content: "", toolsAdded: [tool("late")], timestamp: 3 }
    const messages = [base, user("erased"), patch, user("erased too"), boot("w2"), user("after"), later, user("last")]
    const projection = projectRequest(messages, reset("w2"))
    assert.strictEqual(projection._tag, "Projected")
    if (projection._tag === "Projected") {
      const [head, ...rest] = projection.messages as ReadonlyArray<Record<string, unknown>>
      // Pi's own replay (getCurrentSystemMessage): the prompt kept, sections patched, bash removed, history_read added.
      assert.deepStrictEqual(head, getCurrentSystemMessage([base, patch] as never) as unknown as Record<string, unknown>)
      assert.deepStrictEqual(rest.map((m) => m.text ?? m.role), ["boot w2", "after", "system", "last"])
    }
    // A single system message before the boot leads as it is, the same object: the provider's prefix cache holds.
    const single = projectRequest([base, user("erased"), boot("w2"), user("after")], reset("w2"))
    assert.strictEqual(single._tag === "Projected" && single.messages[0], base)
  })

  it("finds the boot by details.windowId, never by text", () => {
    const messages = [system("p"), boot("w1", "same text"), user("window one"), boot("w2", "same text"), user("window two")]
    const second = projectRequest(messages, reset("w2"))
    assert.strictEqual(second._tag, "Projected")
    if (second._tag === "Projected") assert.deepStrictEqual(texts(second.messages), ["p", "same text", "window two"])
  })

  it("uses the boot after this marker, never an earlier boot with the same id (a duplicated marker)", () => {
    const messages = [system("p"), boot("w2", "first boot"), user("before the second marker"), boot("w2", "second boot"), user("after")]
    const projection = projectRequest(messages, reset("w2"))
    assert.strictEqual(projection._tag, "Projected")
    if (projection._tag === "Projected") assert.deepStrictEqual(texts(projection.messages), ["p", "second boot", "after"])
    // A later boot with the same id inside the window is not the window's start.
    const withLater = [...messages, boot("w2", "forged later"), user("end")]
    const kept = projectRequest(withLater, reset("w2", [marker("w2"), bootEntry("w2"), continuation, message, bootEntry("w2"), message]))
    assert.strictEqual(kept._tag, "Projected")
    if (kept._tag === "Projected") assert.deepStrictEqual(texts(kept.messages), ["p", "second boot", "after", "forged later", "end"])
  })

  it("a marker that reuses the root's id, or the current window's, with no boot after it sends only the system prompt", () => {
    const messages = [system("p"), boot("root"), user("SECRET"), boot("w2"), user("SECRET too"), user("after the forged marker")]
    for (const id of ["root", "w2"]) {
      const projection = projectRequest(messages, reset(id, [marker(id), message]))
      assert.strictEqual(projection._tag, "MissingBoot", id)
      if (projection._tag === "MissingBoot") assert.deepStrictEqual(texts(projection.safeHead), ["p"])
    }
  })

  it("a tail that start-up refuses sends only the system prompt, even with a boot after the marker", () => {
    const messages = [system("p"), user("SECRET"), boot("w2"), user("after")]
    for (
      const tail of [
        [marker("w2"), bootEntry("w2"), message],
        [marker("w2"), bootEntry("w2"), bootEntry("w2"), continuation],
        [marker("w2"), bootEntry("other"), continuation],
        [marker("w2"), at("Foreign", { reason: "bad", ours: true }), bootEntry("w2"), continuation]
      ]
    ) {
      assert.strictEqual(projectRequest(messages, reset("w2", tail))._tag, "MissingBoot", JSON.stringify(tail))
    }
  })

  it("a context edit that hides a boot can only make the window start later, never earlier", () => {
    const messages = [system("p"), boot("w2", "pre-marker boot"), user("SECRET"), boot("w2", "own boot"), user("after")]
    // The tail holds a second boot that an edit keeps out of the request.
    const tail = [marker("w2"), bootEntry("w2"), continuation, message, bootEntry("w2"), at("Metadata", { type: "context_edit" })]
    const projection = projectRequest(messages, reset("w2", tail))
    assert.strictEqual(projection._tag, "Projected")
    if (projection._tag === "Projected") assert.deepStrictEqual(texts(projection.messages), ["p", "own boot", "after"])
  })

  it("fails closed when the window's boot is missing: only the system prompt, never raw history", () => {
    const projection = projectRequest([system("p"), user("secret"), boot("other")], reset("w9"))
    assert.strictEqual(projection._tag, "MissingBoot")
    if (projection._tag === "MissingBoot") assert.deepStrictEqual(texts(projection.safeHead), ["p"])
  })

  it("leaves a request that already starts at the boot unchanged", () => {
    assert.strictEqual(projectRequest([system("p"), boot("w2"), user("u")], reset("w2"))._tag, "Unchanged")
  })

  it("in the root window keeps history and replaces a boot copied from a parent session with its own, in place", () => {
    const messages = [system("p"), boot("parent-root"), user("copied"), boot("own-root"), user("mine")]
    const projection = projectRequest(messages, root("own-root"))
    assert.strictEqual(projection._tag, "Projected")
    if (projection._tag === "Projected") assert.deepStrictEqual(texts(projection.messages), ["p", "boot own-root", "copied", "mine"])
    assert.strictEqual(projectRequest([system("p"), boot("own-root"), user("u")], root("own-root"))._tag, "Unchanged")
    assert.strictEqual(projectRequest([system("p"), user("u")], root("own-root"))._tag, "Unchanged")
  })
})

describe("start-up repair inspection", () => {
  it("completes a marker followed only by metadata, then a boot-only tail", () => {
    assert.deepStrictEqual(inspectTail([marker(), meta]), { _tag: "Repair", windowId: "w", missing: ["boot", "continuation"] })
    assert.deepStrictEqual(inspectTail([marker(), meta, bootEntry(), meta]), { _tag: "Repair", windowId: "w", missing: ["continuation"] })
    // A reset cut off among the context edits that follow its marker is completed the same way.
    const edit = at("Metadata", { type: "context_edit" })
    assert.deepStrictEqual(inspectTail([marker(), edit, edit]), { _tag: "Repair", windowId: "w", missing: ["boot", "continuation"] })
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

  it("never adds a boot for an id that already has one on the branch, or that this session never opened", () => {
    const sessionId = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"
    const own = "pcx:eeeeffff0000:0a1b2c3d"
    const rootId = "pcx:eeeeffff0000:root"
    // A fresh marker of this session is repaired.
    assert.deepStrictEqual(inspectBranch(windowsOf([message, bootEntry(rootId), message, marker(own), meta]), sessionId), {
      _tag: "Repair",
      windowId: own,
      missing: ["boot", "continuation"]
    })
    // A duplicate of the current window's marker, or a marker with the root's id: its id already has a boot.
    for (const id of [own, rootId]) {
      const branch = [bootEntry(rootId), message, marker(own), bootEntry(own), continuation, message, marker(id), meta]
      const inspection = inspectBranch(windowsOf(branch), sessionId)
      assert.strictEqual(inspection._tag, "Refuse", id)
      if (inspection._tag === "Refuse") assert.include(inspection.reason, "already has a boot")
    }
    // The root id without a root boot (pi-context was off), another session's window, anything else: not ours to boot.
    for (const id of [rootId, "pcx:000011112222:0a1b2c3d", "w", "x".repeat(500)]) {
      const inspection = inspectBranch(windowsOf([message, marker(id), meta]), sessionId)
      assert.strictEqual(inspection._tag, "Refuse", id)
      if (inspection._tag === "Refuse") assert.isAtMost(inspection.windowId.length, 64)
    }
    // Completing a continuation writes no boot, so a copied boundary (a fork) is still completed.
    assert.strictEqual(inspectBranch(windowsOf([marker("pcx:000011112222:0a1b2c3d"), bootEntry("pcx:000011112222:0a1b2c3d")]), sessionId)._tag, "Repair")
  })

  it("has nothing to do without a marker", () => {
    assert.deepStrictEqual(inspectTail([message]), { _tag: "NoMarker" })
  })
})

describe("enabled", () => {
  it("enabled follows the last state entry on the branch, in any window, else nothing (the setting decides)", () => {
    assert.isUndefined(enabledOnBranch([{ tail: [message] }]))
    assert.isFalse(enabledOnBranch([{ tail: [at("State", { enabled: false })] }, { tail: [marker("w2"), message] }]))
    assert.isTrue(enabledOnBranch([{ tail: [at("State", { enabled: false }), at("State", { enabled: true })] }]))
  })

  it("looks at only the newest entries when told how many were appended, across a window's start", () => {
    const windows = [{ tail: [at("State", { enabled: false }), message] }, { tail: [marker("w2"), message] }]
    // The state entry is the fourth from the end: three new entries do not reach it, four do.
    assert.isUndefined(enabledOnBranch(windows, 3))
    assert.isFalse(enabledOnBranch(windows, 4))
    assert.isUndefined(enabledOnBranch(windows, 0))
  })
})

describe("continuation", () => {
  it("carries the pending request over every reset, cut at a stated length; an automatic reset carries the digest instead", async () => {
    const { continuationFor, continuationText } = await import("../../src/reset/boundary.ts")
    const { CarriedRequestLimit } = await import("../../src/boot/digest.ts")
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

  it("quotes a request the user cancelled as cancelled, line by line, after the digest too, and never asks to take it up", async () => {
    const { continuationFor, cancelledIntro } = await import("../../src/reset/boundary.ts")
    const cancelled = continuationFor({ pending: undefined, cancelled: "rm -rf build\nthen push", digest: undefined })
    assert.include(cancelled, `${cancelledIntro}\n\n> rm -rf build\n> then push`)
    assert.notInclude(cancelled, "take it up now")
    const automatic = continuationFor({ pending: undefined, cancelled: "rm -rf build", digest: "## What the window held\nfacts" })
    assert.isTrue(automatic.endsWith(`${cancelledIntro}\n\n> rm -rf build`))
  })

  it("reads a user message's text from a raw entry, and nothing from other entries", async () => {
    const { userMessageText } = await import("../../src/kernel/entries.ts")
    const entry = (message: unknown) => ({ type: "message", id: "a", parentId: null, timestamp: "", message })
    assert.strictEqual(userMessageText(entry({ role: "user", content: "plain" })), "plain")
    assert.strictEqual(userMessageText(entry({ role: "user", content: [{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }] })), "a\nb")
    assert.isUndefined(userMessageText(entry({ role: "assistant", content: "no" })))
    assert.isUndefined(userMessageText({ type: "custom", id: "b", parentId: null, timestamp: "" }))
  })
})
