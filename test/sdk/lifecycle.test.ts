import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { type SessionEntry, SessionManager } from "@earendil-works/pi-coding-agent"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { conversation, kinds, ofCustomType } from "../support/entries.ts"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"
import { checkpointAndWipe } from "../support/steps.ts"

const wipe = checkpointAndWipe
const say = (text: string) => fauxAssistantMessage(text)
const overflowError = () =>
  fauxAssistantMessage("", { stopReason: "error", errorMessage: "prompt is too long: 250000 tokens > 200000 maximum" })

const boundaryKinds = ["custom:pi-context/reset-marker", "custom_message:pi-context/boot", "custom_message:pi-context/continuation"]

/** Indexes of every reset marker in the entries. */
const markerIndexes = (entries: ReadonlyArray<SessionEntry>) =>
  kinds(entries).flatMap((kind, index) => (kind === "custom:pi-context/reset-marker" ? [index] : []))

const markerWindowId = (entry: SessionEntry | undefined) => (entry as { data: { windowId: string } }).data.windowId

describe("reset lifecycle in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("wipe_memory commits one boundary at turn_end and the next request starts from the new boot", async () => {
    h = await createHarness()
    h.script([say("working on it"), wipe(), say("fresh start")])
    await h.prompt("remember the word ZEBRA")
    await h.prompt("now wipe")
    const all = kinds(h.entries())
    const marker = markerIndexes(h.entries())
    expect(marker).toHaveLength(1)
    expect(all.slice(marker[0]!, marker[0]! + 3)).toEqual(boundaryKinds)
    const markerEntry = h.entries()[marker[0]!]
    const boot = h.entries()[marker[0]! + 1] as { details: { windowId: string }; display: boolean }
    expect(boot.details.windowId).toBe(markerWindowId(markerEntry))
    expect(boot.display).toBe(false)
    // The continuation ran by itself: the third model call, in the fresh window.
    expect(h.requests).toHaveLength(3)
    const fresh = conversation(h.requests[2]!)
    expect(fresh).toHaveLength(2)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh[0]).toContain(`Current window: ${markerWindowId(markerEntry)}`)
    // The checkpoint written before the wipe is in the request itself, quoted whole: nothing to read before resuming.
    expect(fresh[0]).toContain("Latest note: checkpoint.md\n> # Checkpoint\n> goal: the task; next: go on")
    expect(fresh[1]).toMatch(/^user: Your context window was just reset/)
    // The model asked for this reset after writing its notes: the old window stays behind, but the
    // user's latest message had no reply, so the continuation quotes it as pending.
    expect(fresh.join("\n")).not.toContain("ZEBRA")
    expect(fresh[1]).toContain("had no reply when the window ended")
    expect(fresh[1]!.endsWith("now wipe")).toBe(true)
    expect(h.requests[2]!.messages[0]!.role).toBe("system")
    // Pi's own usage now measures the new window, not the old total.
    expect(h.session.getContextUsage()!.tokens!).toBeLessThan(h.requests.length * 2_000)
    expect(h.notices.map((n) => n.message)).toContainEqual(expect.stringContaining("context reset"))
    expect(h.errors).toEqual([])
  })

  it("registers Pi's boundary hooks only while a boundary may be written (Pi rebuilds the session around each)", async () => {
    const armedAfterTool: Array<boolean> = []
    h = await createHarness({
      extraExtensions: [(pi) => {
        pi.on("tool_execution_end", () => void armedAfterTool.push(h.session.extensionRunner!.hasHandlers("turn_end")))
      }]
    })
    h.script([say("plain answer"), wipe(), say("fresh")])
    await h.prompt("hello")
    expect(h.session.extensionRunner!.hasHandlers("turn_end")).toBe(false)
    expect(h.session.extensionRunner!.hasHandlers("agent_before_settle")).toBe(false)
    await h.prompt("now wipe")
    // The note's result comes first; wipe_memory arms turn_end for its boundary.
    expect(armedAfterTool).toEqual([false, true])
    expect(markerIndexes(h.entries())).toHaveLength(1)
    expect(h.session.extensionRunner!.hasHandlers("turn_end")).toBe(false)
  })

  it("a mixed tool batch finishes before the boundary, and repeated wipes in one batch give one boundary", async () => {
    h = await createHarness()
    h.script([
      fauxAssistantMessage([
        fauxToolCall("wipe_memory", {}),
        fauxToolCall("notes_write", { address: "checkpoint", content: "# Checkpoint\nnext: step 3" }),
        fauxToolCall("wipe_memory", {}),
        fauxToolCall("wipe_memory", {})
      ], { stopReason: "toolUse" }),
      say("resumed")
    ])
    await h.prompt("checkpoint and wipe")
    const all = kinds(h.entries())
    expect(markerIndexes(h.entries())).toHaveLength(1)
    const firstBoundary = all.indexOf("custom:pi-context/reset-marker")
    expect(all.slice(firstBoundary - 4, firstBoundary)).toEqual(["message:toolResult", "message:toolResult", "message:toolResult", "message:toolResult"])
    const results = h.entries().slice(firstBoundary - 4, firstBoundary).map((entry) => JSON.stringify(entry))
    // The batch runs in order: the wipe before the note is refused, the one after it is honoured.
    expect(results[0]).toContain("Not reset yet")
    expect(results[1]).toContain("Created checkpoint")
    expect(results[2]).toContain("Memory wipe scheduled")
    expect(results[3]).toContain("already scheduled")
    // The boot of the new window already indexes the note written in the same batch.
    const boot = ofCustomType(h.entries(), "pi-context/boot").at(-1) as { content: string }
    expect(boot.content).toContain("checkpoint")
  })

  it("an aborted turn drops the pending boundary and never continues", async () => {
    h = await createHarness()
    h.script([
      (context) => {
        // The user presses Escape while the model's wipe call is in flight.
        setTimeout(() => void h.session.abort(), 0)
        return wipe()
      },
      say("should not run")
    ])
    await h.prompt("wipe please").catch(() => undefined)
    await h.waitForIdle()
    expect(markerIndexes(h.entries())).toHaveLength(0)
    expect(ofCustomType(h.entries(), "pi-context/continuation")).toHaveLength(0)
    expect(h.requests).toHaveLength(1)
  })

  it("a provider overflow resets once per failure chain: two overflows give one recovery", async () => {
    h = await createHarness()
    h.script([say("ok"), overflowError(), overflowError(), say("never reached")])
    await h.prompt("hello")
    await h.prompt("a huge request")
    expect(markerIndexes(h.entries())).toHaveLength(1)
    // First overflow → boundary + retry in the fresh window; its overflow gets no second recovery.
    expect(h.requests).toHaveLength(3)
    const fresh = conversation(h.requests[2]!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    // The reset was automatic, so the user's last message is carried into the new window.
    expect(fresh[1]).toMatch(/^user: Your context window was just reset[\s\S]*This reset was automatic/)
    expect(fresh[1]).toMatch(/pending request[^\n]*\n> a huge request/)
    expect(h.faux.getPendingResponseCount()).toBe(1)
  })

  it("a reply cut short by context pressure (a length stop below the output limit) is recovered like an overflow", async () => {
    h = await createHarness({ settings: { compaction: { enabled: true } } })
    h.script([say("ok"), fauxAssistantMessage("half an answ", { stopReason: "length" }), say("whole answer in a fresh window")])
    await h.prompt("hello")
    await h.prompt("a long question")
    expect(markerIndexes(h.entries())).toHaveLength(1)
    expect(h.requests).toHaveLength(3)
    expect(conversation(h.requests[2]!)[0]).toMatch(/^user: ## Context window/)
    expect(conversation(h.requests[2]!)[1]).toContain("a long question")
    expect(markerIndexes(h.entries())).toHaveLength(1)
  })

  it("an ordinary provider error stays Pi's and resets nothing", async () => {
    h = await createHarness()
    h.script([fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 service unavailable" })])
    await h.prompt("hello")
    expect(markerIndexes(h.entries())).toHaveLength(0)
  })

  it("steering and follow-up messages queued during the committing turn arrive once, in the new window", async () => {
    h = await createHarness()
    h.script([
      () => {
        void h.session.steer("STEER-ONE")
        void h.session.followUp("FOLLOW-ONE")
        return wipe()
      },
      say("after steer"),
      say("after follow-up")
    ])
    await h.prompt("start")
    const all = h.entries()
    const marker = markerIndexes(all)[0]!
    const userTexts = all.flatMap((entry, index) =>
      entry.type === "message" && entry.message.role === "user" ? [{ index, text: JSON.stringify(entry.message.content) }] : []
    )
    const steer = userTexts.filter((u) => u.text.includes("STEER-ONE"))
    const follow = userTexts.filter((u) => u.text.includes("FOLLOW-ONE"))
    expect(steer).toHaveLength(1)
    expect(follow).toHaveLength(1)
    expect(steer[0]!.index).toBeGreaterThan(marker)
    expect(follow[0]!.index).toBeGreaterThan(marker)
    const seen = h.requests.slice(1).map((r) => conversation(r).join("\n"))
    expect(seen.filter((text) => text.includes("STEER-ONE")).length).toBeGreaterThan(0)
    for (const text of seen) expect(text.split("STEER-ONE").length - 1).toBeLessThanOrEqual(1)
    expect(seen[0]).toContain("## Context window")
  })

  it("/wipe-memory in a window where nothing was said since its boot ends nothing and says so", async () => {
    h = await createHarness()
    h.script([say("one")])
    await h.prompt("hello")
    await h.prompt("/wipe-memory")
    await h.prompt("/wipe-memory")
    expect(markerIndexes(h.entries())).toHaveLength(1)
    expect(h.notices.at(-1)!.message).toBe(
      "pi-context: w2 started from your notes and nothing has happened in it since, so /wipe-memory has nothing to end. Your next prompt goes to w2."
    )
    h.script([say("two")])
    await h.prompt("continue")
    // Once something was said in it, the window ends as before.
    await h.prompt("/wipe-memory")
    expect(markerIndexes(h.entries())).toHaveLength(2)
    expect(h.errors).toEqual([])
  })

  it("/wipe-memory appends marker, boot and continuation without calling a model", async () => {
    h = await createHarness()
    h.script([say("one")])
    await h.prompt("hello")
    const calls = h.faux.state.callCount
    await h.prompt("/wipe-memory")
    expect(h.faux.state.callCount).toBe(calls)
    expect(kinds(h.entries()).slice(-3)).toEqual(boundaryKinds)
    h.script([say("two")])
    await h.prompt("continue")
    const fresh = conversation(h.requests.at(-1)!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh.at(-1)).toContain("continue")
    expect(fresh.join("\n")).not.toContain("hello")
  })

  it("/compact is cancelled while enabled, with a notice naming /wipe-memory", async () => {
    h = await createHarness({ settings: { compaction: { enabled: false, keepRecentTokens: 1 } } })
    h.script([say("one ".repeat(400)), say("two ".repeat(400))])
    await h.prompt("hello ".repeat(400))
    await h.prompt("again ".repeat(400))
    await expect(h.session.compact()).rejects.toThrow(/cancel/i)
    expect(h.notices.map((n) => n.message)).toContainEqual(expect.stringContaining("/wipe-memory"))
    expect(kinds(h.entries())).not.toContain("compaction")
  })

  it("/pi-context off on a branch with resets: the notices say the window is the user's, and /wipe-memory still resets it", async () => {
    h = await createHarness({ settings: { compaction: { enabled: true, keepRecentTokens: 1 } } })
    h.script([wipe(), say("fresh ".repeat(400)), say("still fresh ".repeat(400)), say("in the third window")])
    await h.prompt("wipe")
    await h.prompt("/pi-context off")
    const off = h.notices.at(-1)!.message
    expect(off).toContain("pi-context is off")
    expect(off).toContain("Pi's compaction stays cancelled")
    expect(off).toContain("/wipe-memory")
    await h.prompt("OLD-WINDOW question")
    // Off stops the automatic resets only: the user's own /wipe-memory still starts a fresh window.
    await h.prompt("/wipe-memory")
    expect(markerIndexes(h.entries())).toHaveLength(2)
    expect(h.notices.map((n) => n.message)).not.toContainEqual(expect.stringContaining("Run /pi-context on first"))
    expect(h.notices.at(-1)!.message).toContain("context reset (/wipe-memory)")
    await h.prompt("after the reset")
    const fresh = conversation(h.requests.at(-1)!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh.join("\n")).not.toContain("OLD-WINDOW")
    // Pi's compaction stays cancelled here, and its notice names who manages the window now.
    await expect(h.session.compact()).rejects.toThrow(/cancel/i)
    const cancelled = h.notices.filter((n) => n.message.includes("native compaction is cancelled")).at(-1)!.message
    expect(cancelled).toContain("pi-context is off, so nothing resets this window by itself")
    expect(cancelled).toContain("/wipe-memory")
    await h.prompt("/pi-context status")
    expect(h.notices.at(-1)!.message).toMatch(/^window managed by: you: \/wipe-memory ends it .*Pi's compaction stays cancelled/m)
    expect(h.errors).toEqual([])
  })

  it("/pi-context off on a branch without resets hands the window back to Pi's compaction, and says so", async () => {
    h = await createHarness()
    h.script([say("one")])
    await h.prompt("hello")
    await h.prompt("/pi-context off")
    expect(h.notices.at(-1)!.message).toContain("Pi's own compaction manages this branch again")
    await h.prompt("/pi-context status")
    expect(h.notices.at(-1)!.message).toMatch(/^window managed by: Pi's own compaction/m)
  })

  it("/pi-context off stops new resets but keeps the boundary; the choice survives a restart; on resumes", async () => {
    const dirs = makeDirs()
    const sessionDir = join(dirs.root, "sessions")
    const settings = { compaction: { enabled: false, keepRecentTokens: 1 } }
    h = await createHarness({ dirs, settings, sessionManager: (cwd) => SessionManager.create(cwd, sessionDir) })
    h.script([wipe(), say("fresh ".repeat(400)), say("still fresh ".repeat(400)), wipe(), say("not wiped")])
    await h.prompt("wipe")
    await h.prompt("/pi-context off")
    await h.prompt("next")
    expect(conversation(h.requests.at(-1)!)[0]).toMatch(/^user: ## Context window/)
    await h.prompt("wipe again")
    expect(markerIndexes(h.entries())).toHaveLength(1)
    const refusal = h.entries().filter((entry) => entry.type === "message" && entry.message.role === "toolResult").at(-1)
    expect(JSON.stringify(refusal)).toContain("pi-context is off")
    // A marked branch still cancels native compaction while off.
    await expect(h.session.compact()).rejects.toThrow(/cancel/i)
    const file = h.session.sessionManager.getSessionFile()!
    await h.dispose()

    h = await createHarness({ dirs, settings, sessionManager: (cwd) => SessionManager.open(file, sessionDir, cwd) })
    await h.prompt("/pi-context status")
    expect(h.notices.at(-1)!.message).toContain(": off")
    await h.prompt("/pi-context on")
    h.script([wipe(), say("fresh again")])
    await h.prompt("wipe now")
    expect(markerIndexes(h.entries())).toHaveLength(2)
    expect(ofCustomType(h.entries(), "pi-context/state").map((e) => (e as { data: unknown }).data)).toEqual([
      { enabled: false },
      { enabled: true }
    ])
  })
})
