import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { type SessionEntry, SessionManager } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it } from "vitest"
import { conversation, kinds, ofCustomType } from "../support/entries.ts"
import { createHarness, type Harness, type HarnessDirs, makeDirs } from "../support/sdkHarness.ts"
import { checkpointAndWipe } from "../support/steps.ts"

/**
 * The budget in Pi's real loop. The faux model reports usage as chars/4 of the
 * request, so a 10,000-token window with lines at 6,000 / 4,000 / 2,000 tokens
 * left is crossed by prompts of a few thousand characters. A fresh root window
 * (system prompt + boot + a short prompt) uses about 2,500 tokens.
 */
const contextWindow = 10_000
const lines = { guidanceLine: 6_000, warningLine: 4_000, hardLine: 2_000 }

const wipe = checkpointAndWipe
const say = (text: string) => fauxAssistantMessage(text)
const askRemaining = () => fauxAssistantMessage([fauxToolCall("context_remaining", {})], { stopReason: "toolUse" })
/** A prompt of about `tokens` tokens by the faux model's (and Pi's) chars/4 estimate. */
const filler = (tokens: number, tag = "z") => `${tag} ${"x".repeat(tokens * 4)}`

const GUIDANCE = "[pi-context] Context budget:"
const WARNING = "[pi-context] Final context warning"

/** Pi's global settings file, as a user writes it; pi-context reads the files, not Pi's in-memory settings. */
const dirsWith = (settings: Record<string, unknown>): HarnessDirs => {
  const dirs = makeDirs()
  mkdirSync(dirs.agentDir, { recursive: true })
  writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify(settings, null, 2))
  return dirs
}

const sessionDir = (dirs: HarnessDirs) => join(dirs.root, "sessions")

const windowIdOf = (entry: SessionEntry) => (entry as { details: { windowId: string } }).details.windowId
const markerIndexes = (entries: ReadonlyArray<SessionEntry>) =>
  kinds(entries).flatMap((kind, index) => (kind === "custom:pi-context/reset-marker" ? [index] : []))
const rootWindow = (h: Harness) => windowIdOf(ofCustomType(h.entries(), "pi-context/boot")[0]!)
const lastBootWindow = (h: Harness) => windowIdOf(ofCustomType(h.entries(), "pi-context/boot").at(-1)!)

/** How often `needle` occurs in the text a provider request carried. */
const occurrences = (request: { readonly messages: ReadonlyArray<unknown> }, needle: string) =>
  conversation(request).join("\n").split(needle).length - 1

const budgetNotices = (h: Harness) =>
  h.notices.map((n) => n.message).filter((m) => /final warning/.test(m))

const toolResults = (h: Harness, toolName: string) =>
  h.entries().flatMap((entry) =>
    entry.type === "message" && entry.message.role === "toolResult" && entry.message.toolName === toolName ? [entry.message] : []
  )

const stopReasons = (h: Harness) =>
  h.entries().flatMap((entry) => (entry.type === "message" && entry.message.role === "assistant" ? [entry.message.stopReason] : []))

describe("budget in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("guidance then warning fire once each per window, in order, and again in the next window", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), say("ok"), say("ok"), say("ok"), say("ok"), wipe(), say("fresh"), say("ok")])
    await h.prompt("hello")
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(0)
    await h.prompt(filler(2_000)) // ~5,500 left: guidance
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(1)
    expect(ofCustomType(h.entries(), "pi-context/warning")).toHaveLength(0)
    await h.prompt(filler(500)) // ~4,900 left: still between guidance and warning
    await h.prompt(filler(1_200)) // ~3,600 left: warning
    await h.prompt("small step") // below the warning line, above the hard line: nothing new
    const root = rootWindow(h)
    const firstWindow = h.entries()
    const guidance = ofCustomType(firstWindow, "pi-context/guidance")
    const warning = ofCustomType(firstWindow, "pi-context/warning")
    expect(guidance).toHaveLength(1)
    expect(warning).toHaveLength(1)
    expect(guidance.map(windowIdOf)).toEqual([root])
    expect(warning.map(windowIdOf)).toEqual([root])
    expect((guidance[0] as { content: string; display: boolean }).content).toContain(GUIDANCE)
    expect((warning[0] as { content: string; display: boolean }).display).toBe(false)
    expect(firstWindow.indexOf(guidance[0]!)).toBeLessThan(firstWindow.indexOf(warning[0]!))
    // Each reminder sits right after the reply of the turn that crossed its line.
    const k = kinds(firstWindow)
    expect(k[firstWindow.indexOf(guidance[0]!) - 1]).toBe("message:assistant")
    expect(k[firstWindow.indexOf(warning[0]!) - 1]).toBe("message:assistant")
    // Every later request in the window carries each reminder exactly once: its committed entry.
    for (const request of h.requests.slice(2)) expect(occurrences(request, GUIDANCE)).toBe(1)
    for (const request of h.requests.slice(4)) expect(occurrences(request, WARNING)).toBe(1)
    expect(budgetNotices(h)).toHaveLength(2)

    // A new window has its own budget: the guidance fires again, for that window.
    await h.prompt("wipe now")
    const second = lastBootWindow(h)
    expect(second).not.toBe(root)
    await h.prompt(filler(2_000, "again"))
    const after = ofCustomType(h.entries(), "pi-context/guidance")
    expect(after.map(windowIdOf)).toEqual([root, second])
    expect(ofCustomType(h.entries(), "pi-context/warning").map(windowIdOf)).toEqual([root])
    expect(h.entries().indexOf(after[1]!)).toBeGreaterThan(markerIndexes(h.entries())[0]!)
    expect(conversation(h.requests.at(-1)!).join("\n")).not.toContain(WARNING)
    expect(h.errors).toEqual([])
  })

  it("the warning is in the very request that crossed the line, and later requests carry it once, from its entry", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), askRemaining(), say("noted"), say("ok")])
    await h.prompt("hello")
    await h.prompt(filler(3_800)) // one jump past both lines: only the warning
    const crossing = h.requests[1]!
    expect(occurrences(h.requests[0]!, WARNING)).toBe(0)
    expect(conversation(crossing).at(-1)).toMatch(/^user: \[pi-context\] Final context warning/)
    expect(occurrences(crossing, WARNING)).toBe(1)
    // The same run's next request (after the tool result) sees the committed entry, not a second copy,
    // where the crossing request had it: before the reply to it, so the request extends the one before.
    const next = conversation(h.requests[2]!)
    expect(occurrences(h.requests[2]!, WARNING)).toBe(1)
    expect(next.slice(0, conversation(crossing).length)).toEqual(conversation(crossing))
    expect(next.at(-3)).toMatch(/^user: \[pi-context\] Final context warning/)
    expect(next.at(-1)).toMatch(/^toolResult: /)
    await h.prompt("and now?")
    expect(occurrences(h.requests[3]!, WARNING)).toBe(1)
    // Jumping past both lines in one step stages only the warning.
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(0)
    expect(ofCustomType(h.entries(), "pi-context/warning")).toHaveLength(1)
  })

  it("when the crossing turn also resets, the reminder drafts precede the marker", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), wipe(), say("fresh")])
    await h.prompt("hello")
    await h.prompt(filler(3_800, "save and wipe"))
    expect(occurrences(h.requests[1]!, WARNING)).toBe(1)
    const all = kinds(h.entries())
    const marker = markerIndexes(h.entries())
    expect(marker).toHaveLength(1)
    expect(all.slice(marker[0]! - 4, marker[0]! + 3)).toEqual([
      "message:assistant",
      "message:toolResult",
      "message:toolResult",
      "custom_message:pi-context/warning",
      "custom:pi-context/reset-marker",
      "custom_message:pi-context/boot",
      "custom_message:pi-context/continuation"
    ])
    const warning = ofCustomType(h.entries(), "pi-context/warning")[0]!
    expect(windowIdOf(warning)).toBe(rootWindow(h))
    // The fresh window never sees the old window's warning.
    expect(occurrences(h.requests[2]!, WARNING)).toBe(0)
  })

  it("an aborted turn commits neither reminder; the next completed turn delivers it once", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    const abortNow = (text: string) => () => {
      // The user presses Escape while the crossing request is in flight.
      void h.session.abort()
      return say(text)
    }
    h.script([say("ok"), abortNow("aborted guidance turn")])
    await h.prompt("hello")
    await h.prompt(filler(2_000)).catch(() => undefined) // crosses the guidance line
    await h.waitForIdle()
    expect(occurrences(h.requests[1]!, GUIDANCE)).toBe(1) // in the crossing request, though not committed
    expect(stopReasons(h).at(-1)).toBe("aborted")
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(0)

    h.script([abortNow("aborted warning turn")])
    await h.prompt(filler(1_800)).catch(() => undefined) // crosses the warning line
    await h.waitForIdle()
    expect(occurrences(h.requests[2]!, WARNING)).toBe(1)
    expect(stopReasons(h).at(-1)).toBe("aborted")
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(0)
    expect(ofCustomType(h.entries(), "pi-context/warning")).toHaveLength(0)
    expect(budgetNotices(h)).toEqual([])

    // Not delivered, so the next request stages the warning again and this completed turn commits it.
    h.script([say("ok"), say("ok")])
    await h.prompt("go on")
    expect(occurrences(h.requests[3]!, WARNING)).toBe(1)
    expect(ofCustomType(h.entries(), "pi-context/warning")).toHaveLength(1)
    await h.prompt("and on")
    expect(occurrences(h.requests[4]!, WARNING)).toBe(1)
    expect(ofCustomType(h.entries(), "pi-context/warning")).toHaveLength(1)
    // The guidance dropped with its aborted turn is not revived: the warning outranks it.
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(0)
    expect(budgetNotices(h)).toHaveLength(1)
  })

  it("after a reload nothing is delivered twice and no reminder notice repeats", async () => {
    const dirs = dirsWith({ "pi-context": lines })
    h = await createHarness({ dirs, contextWindow, sessionManager: (cwd) => SessionManager.create(cwd, sessionDir(dirs)) })
    h.script([say("ok"), say("ok"), say("ok")])
    await h.prompt("hello")
    await h.prompt(filler(2_000))
    await h.prompt(filler(1_700))
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(1)
    expect(ofCustomType(h.entries(), "pi-context/warning")).toHaveLength(1)
    expect(budgetNotices(h)).toHaveLength(2)
    const file = h.session.sessionManager.getSessionFile()!
    await h.dispose()

    h = await createHarness({ dirs, contextWindow, sessionManager: (cwd) => SessionManager.open(file, sessionDir(dirs), cwd) })
    h.script([say("resumed"), say("resumed again")])
    await h.prompt("where were we?")
    await h.prompt("and now?")
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(1)
    expect(ofCustomType(h.entries(), "pi-context/warning")).toHaveLength(1)
    for (const request of h.requests) {
      expect(occurrences(request, GUIDANCE)).toBe(1)
      expect(occurrences(request, WARNING)).toBe(1)
    }
    expect(budgetNotices(h)).toEqual([])
    expect(h.errors).toEqual([])
  })

  it("a sibling branch reached by /tree does not inherit a reminder committed on another branch", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), say("ok"), say("ok")])
    await h.prompt("hello")
    const before = h.entries().filter((entry) => entry.type === "message" && entry.message.role === "assistant").at(-1)!
    await h.prompt(filler(2_000))
    expect(ofCustomType(h.branch(), "pi-context/guidance")).toHaveLength(1)
    await h.session.navigateTree(before.id, { summarize: false })
    expect(ofCustomType(h.branch(), "pi-context/guidance")).toHaveLength(0)
    await h.prompt(filler(2_000, "sibling"))
    // The sibling's own guidance, staged by its crossing request: one copy, not the other branch's.
    expect(occurrences(h.requests[2]!, GUIDANCE)).toBe(1)
    expect(ofCustomType(h.branch(), "pi-context/guidance")).toHaveLength(1)
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(2)
    expect(ofCustomType(h.entries(), "pi-context/guidance").map(windowIdOf)).toEqual([rootWindow(h), rootWindow(h)])
  })

  it("the hard line resets a model that ignored the warning: a finished reply commits the boundary, with no model call", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), say("ignoring the warning"), say("still ignoring"), say("fresh window")])
    await h.prompt("hello")
    await h.prompt(filler(3_800)) // warning
    expect(markerIndexes(h.entries())).toHaveLength(0)
    await h.prompt(filler(2_000)) // ~1,700 left: past the hard line
    const all = kinds(h.entries())
    const marker = markerIndexes(h.entries())
    expect(marker).toHaveLength(1)
    expect(all.slice(marker[0]! - 1)).toEqual([
      "message:assistant",
      "custom:pi-context/reset-marker",
      "custom_message:pi-context/boot",
      "custom_message:pi-context/continuation"
    ])
    // The reply had finished the run: no model call of pi-context's own.
    expect(h.requests).toHaveLength(3)
    expect(h.notices.map((n) => n.message)).toContainEqual(expect.stringContaining("context reset"))
    expect(h.statuses.at(-1)!.text).toMatch(/^pi-context · ~\d+% · w2$/)
    // The user's next prompt starts the fresh window, without the old conversation.
    await h.prompt("next step")
    const fresh = conversation(h.requests[3]!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh[1]).toMatch(/^user: Your context window was just reset/)
    expect(fresh.at(-1)).toBe("user: next step")
    expect(fresh.join("\n")).not.toContain(WARNING)
  })

  it("with Pi's compaction.enabled false the warning and the hard line still work (hard line = Pi's reserve)", async () => {
    const compaction = { enabled: false, reserveTokens: 2_000 }
    h = await createHarness({
      dirs: dirsWith({ compaction, "pi-context": { guidanceLine: 6_000, warningLine: 4_000 } }),
      contextWindow,
      settings: { compaction }
    })
    h.script([say("ok"), say("ignoring"), say("fresh")])
    await h.prompt("hello")
    await h.prompt(filler(5_800)) // past the warning and the hard line in one step
    expect(occurrences(h.requests[1]!, WARNING)).toBe(1)
    expect(conversation(h.requests[1]!).at(-1)).toContain("already past its hard line, which is at 2,000 tokens left, so pi-context resets it automatically")
    const all = kinds(h.entries())
    const marker = markerIndexes(h.entries())
    expect(marker).toHaveLength(1)
    expect(all.slice(marker[0]! - 2, marker[0]! + 1)).toEqual([
      "message:assistant",
      "custom_message:pi-context/warning",
      "custom:pi-context/reset-marker"
    ])
    expect(h.requests).toHaveLength(2)
    await h.prompt("go on")
    expect(conversation(h.requests[2]!)[0]).toMatch(/^user: ## Context window/)
  })

  it("pi-context.automaticReset false keeps the warning but never resets at the hard line", async () => {
    h = await createHarness({
      dirs: dirsWith({ compaction: { enabled: false }, "pi-context": { ...lines, automaticReset: false } }),
      contextWindow,
      settings: { compaction: { enabled: false } }
    })
    h.script([say("ok"), say("ignoring"), say("still here")])
    await h.prompt("hello")
    await h.prompt(filler(5_800))
    await h.prompt("more")
    expect(conversation(h.requests[1]!).at(-1)).toContain("before this window is full")
    expect(ofCustomType(h.entries(), "pi-context/warning")).toHaveLength(1)
    expect(markerIndexes(h.entries())).toHaveLength(0)
    expect(h.requests).toHaveLength(3)
    // Past the warning line the status line takes the theme's error colour (issue 12).
    expect(h.statuses.at(-1)!.text).toMatch(/^<error>pi-context · \d+% · w1<\/error>$/)
  })

  it("reminder notices appear only after the reminder is committed", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    const seen: Array<{ notices: number; committed: number }> = []
    const snapshot = () =>
      void seen.push({
        notices: h.notices.filter((n) => n.message.includes("tokens before the final warning")).length,
        committed: ofCustomType(h.entries(), "pi-context/guidance").length
      })
    h.script([
      say("ok"),
      () => {
        snapshot() // the crossing request: staged, not committed
        return askRemaining()
      },
      () => {
        snapshot() // next turn of the same run: committed at turn_end, announced at turn start
        return say("done")
      }
    ])
    await h.prompt("hello")
    await h.prompt(filler(2_000))
    expect(seen).toEqual([{ notices: 0, committed: 0 }, { notices: 1, committed: 1 }])
    const notice = h.notices.find((n) => n.message.includes("tokens before the final warning"))!
    expect(notice.level).toBe("info")
    // Settlement does not announce it again.
    expect(h.notices.filter((n) => n.message.includes("tokens before the final warning"))).toHaveLength(1)
  })

  it("a reminder another extension keeps out of the session is never announced", async () => {
    // A later turn_end handler drops pi-context's reminder drafts: handed over, never committed.
    h = await createHarness({
      dirs: dirsWith({ "pi-context": lines }),
      contextWindow,
      extraExtensions: [(pi) => {
        pi.on("turn_end", (event) => ({
          entries: event.entries.filter((entry) => !("customType" in entry && String(entry.customType).startsWith("pi-context/guid")))
        }))
      }]
    })
    h.script([say("ok"), askRemaining(), say("done")])
    await h.prompt("hello")
    await h.prompt(filler(2_000))
    expect(ofCustomType(h.entries(), "pi-context/guidance")).toHaveLength(0)
    expect(h.notices.filter((n) => n.message.includes("tokens before the final warning"))).toEqual([])
  })

  it("context_remaining returns numbers, and the status line shows the budget", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), askRemaining(), say("fine")])
    await h.prompt("hello")
    await h.prompt(filler(1_000))
    const [result] = toolResults(h, "context_remaining")
    const details = result!.details as { beforeWarning: number; beforeHard: number; tokensLeft: number; contextWindow: number }
    expect(typeof details.beforeWarning).toBe("number")
    expect(typeof details.beforeHard).toBe("number")
    expect(details.contextWindow).toBe(contextWindow)
    expect(details.beforeWarning).toBeGreaterThan(0)
    expect(details.beforeWarning).toBe(details.tokensLeft - lines.warningLine)
    expect(details.beforeHard).toBe(details.tokensLeft - lines.hardLine)
    const text = result!.content.map((part) => ("text" in part ? part.text : "")).join("")
    expect(text).toContain(`Before the final warning: ${details.beforeWarning.toLocaleString("en-US")} tokens`)
    const status = h.statuses.filter((s) => s.key === "pi-context").at(-1)!.text!
    const match = /^pi-context · (\d+)% · w1$/.exec(status)
    expect(match).not.toBeNull()
    const usage = h.session.getContextUsage()!
    expect(Number(match![1])).toBe(Math.round((usage.tokens! / contextWindow) * 100))
  })
})
