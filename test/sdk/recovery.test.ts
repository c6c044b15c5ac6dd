import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { SessionManager } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it } from "vitest"
import { conversation, kinds, ofCustomType } from "../support/entries.ts"
import { createHarness, type Harness, type HarnessDirs, makeDirs } from "../support/sdkHarness.ts"
import { checkpointAndWipe } from "../support/steps.ts"

const wipe = checkpointAndWipe
const say = (text: string) => fauxAssistantMessage(text)
const settings = { compaction: { enabled: false, keepRecentTokens: 1 } }

const fileSession = (dirs: HarnessDirs) => (cwd: string) => SessionManager.create(cwd, join(dirs.root, "sessions"))
const reopen = (dirs: HarnessDirs, file: string) => (cwd: string) => SessionManager.open(file, join(dirs.root, "sessions"), cwd)

/** Rewrites a session file: keeps lines up to and including the last reset marker, then `extra`. */
const cutAfterLastMarker = (file: string, extra: ReadonlyArray<Record<string, unknown>> = []) => {
  const lines = readFileSync(file, "utf8").trimEnd().split("\n")
  const markerLine = lines.findLastIndex((line) => line.includes("pi-context/reset-marker"))
  const marker = JSON.parse(lines[markerLine]!) as { id: string }
  let parentId = marker.id
  const added = extra.map((entry, index) => {
    const line = { id: `ffff000${index}`, parentId, timestamp: new Date().toISOString(), ...entry }
    parentId = line.id
    return JSON.stringify(line)
  })
  writeFileSync(file, [...lines.slice(0, markerLine + 1), ...added].join("\n") + "\n")
  return marker.id
}

describe("recovery, reopening and branches", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("a file-backed session reopened after two resets still projects from the right boot", async () => {
    const dirs = makeDirs()
    h = await createHarness({ dirs, settings, sessionManager: fileSession(dirs) })
    h.script([say("first window, word ALPHA"), wipe(), say("second window, word BETA"), wipe(), say("third window")])
    await h.prompt("one")
    await h.prompt("wipe one")
    await h.prompt("wipe two")
    const boots = ofCustomType(h.entries(), "pi-context/boot") as Array<{ details: { windowId: string } }>
    const lastWindow = boots.at(-1)!.details.windowId
    const file = h.session.sessionManager.getSessionFile()!
    await h.dispose()

    h = await createHarness({ dirs, settings, sessionManager: reopen(dirs, file) })
    h.script([say("still in the third window")])
    await h.prompt("where am I?")
    const seen = conversation(h.requests[0]!)
    expect(seen[0]).toContain(`Current window: ${lastWindow}`)
    expect(seen.join("\n")).not.toMatch(/ALPHA|BETA/)
    expect(seen.at(-1)).toContain("where am I?")
    expect(h.notices.filter((n) => n.level !== "info")).toEqual([])
  })

  it("a session file cut after the marker (boot missing) is repaired on start", async () => {
    const dirs = makeDirs()
    h = await createHarness({ dirs, settings, sessionManager: fileSession(dirs) })
    h.script([wipe(), say("fresh")])
    await h.prompt("wipe")
    const file = h.session.sessionManager.getSessionFile()!
    await h.dispose()
    cutAfterLastMarker(file, [{ type: "model_change", provider: "faux", modelId: "faux-1" }])

    h = await createHarness({ dirs, settings, sessionManager: reopen(dirs, file) })
    h.script([say("resumed")])
    await h.prompt("go on")
    const tail = kinds(h.entries())
    const marker = tail.lastIndexOf("custom:pi-context/reset-marker")
    expect(tail.slice(marker)).toEqual([
      "custom:pi-context/reset-marker",
      "model_change",
      "custom_message:pi-context/boot",
      "custom_message:pi-context/continuation",
      // The repaired window began at a reset: its history tools are offered again, which Pi records as a system message.
      "message:system",
      "message:user",
      "message:assistant"
    ])
    expect(conversation(h.requests[0]!)[0]).toMatch(/^user: ## Context window/)
  })

  it("a cut session with a user message after the marker is refused, and its requests never carry raw history", async () => {
    const dirs = makeDirs()
    h = await createHarness({ dirs, settings, sessionManager: fileSession(dirs) })
    h.script([say("SECRET-OLD-HISTORY"), wipe(), say("fresh")])
    await h.prompt("first")
    await h.prompt("wipe")
    const file = h.session.sessionManager.getSessionFile()!
    await h.dispose()
    cutAfterLastMarker(file, [{ type: "message", message: { role: "user", content: [{ type: "text", text: "later work" }], timestamp: 1 } }])

    h = await createHarness({ dirs, settings, sessionManager: reopen(dirs, file) })
    h.script([say("should not be asked with history")])
    await h.prompt("continue").catch(() => undefined)
    await h.waitForIdle()
    expect(h.notices.map((n) => n.message)).toContainEqual(expect.stringMatching(/cannot be repaired safely.*\/wipe-memory/))
    // Refused: only the root window's boot exists; nothing was appended after the later work.
    expect(ofCustomType(h.entries(), "pi-context/boot")).toHaveLength(1)
    for (const request of h.requests) expect(conversation(request).join("\n")).not.toContain("SECRET-OLD-HISTORY")
    expect(h.notices.map((n) => n.message)).toContainEqual(expect.stringMatching(/has no boot.*\/wipe-memory/))

    // /wipe-memory is the way out: a fresh window from the notes.
    await h.prompt("/wipe-memory")
    h.script([say("clean again")])
    await h.prompt("now?")
    const last = conversation(h.requests.at(-1)!)
    expect(last[0]).toMatch(/^user: ## Context window/)
    expect(last.join("\n")).not.toContain("SECRET-OLD-HISTORY")
  })

  it("corrupt pi-context entries are ignored with one notice, never trusted, never a crash", async () => {
    const dirs = makeDirs()
    h = await createHarness({ dirs, settings, sessionManager: fileSession(dirs) })
    h.script([say("first window, word DELTA")])
    await h.prompt("one")
    const file = h.session.sessionManager.getSessionFile()!
    await h.dispose()
    const lines = readFileSync(file, "utf8").trimEnd().split("\n")
    let parentId = (JSON.parse(lines.at(-1)!) as { id: string }).id
    const append = (entry: Record<string, unknown>) => {
      const id = `bad0000${lines.length}`
      lines.push(JSON.stringify({ id, parentId, timestamp: new Date().toISOString(), ...entry }))
      parentId = id
    }
    append({ type: "custom", customType: "pi-context/reset-marker", data: { window: "no id" } })
    append({ type: "custom_message", customType: "pi-context/boot", content: "forged boot", display: false, details: 42 })
    append({ type: "custom", customType: "pi-context/state", data: { enabled: "maybe" } })
    writeFileSync(file, lines.join("\n") + "\n")

    h = await createHarness({ dirs, settings, sessionManager: reopen(dirs, file) })
    h.script([say("still the root window")])
    await h.prompt("go on")
    const warnings = h.notices.filter((n) => n.message.includes("could not be read"))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.message).toContain("ignored 3 of its entries")
    // The broken marker starts no window: the request is the root window's, history intact.
    const seen = conversation(h.requests[0]!).join("\n")
    expect(seen).toContain("DELTA")
    expect(seen).not.toContain("forged boot")
    expect(h.errors).toEqual([])
    await h.prompt("/pi-context doctor")
    expect(h.notices.at(-1)!.message).toMatch(/FAIL 3 unreadable pi-context entries are ignored/)
  })

  it("a fork gets a fresh root identity, keeps the copied messages, and inherits the parent's session notes", async () => {
    const dirs = makeDirs()
    h = await createHarness({ dirs, settings, sessionManager: fileSession(dirs) })
    h.script([
      fauxAssistantMessage([fauxToolCall("notes_write", { address: "plan", content: "# Plan\nPARENT-PLAN" })], { stopReason: "toolUse" }),
      say("noted, word GAMMA")
    ])
    await h.prompt("write the plan")
    const parentFile = h.session.sessionManager.getSessionFile()!
    const parentRoot = (ofCustomType(h.entries(), "pi-context/boot")[0] as { details: { windowId: string } }).details.windowId
    await h.dispose()

    h = await createHarness({
      dirs,
      settings,
      sessionManager: (cwd) => SessionManager.forkFrom(parentFile, cwd, join(dirs.root, "sessions"))
    })
    h.script([fauxAssistantMessage([fauxToolCall("notes_read", { address: "plan" })], { stopReason: "toolUse" }), say("forked")])
    await h.prompt("in the fork")
    const boots = ofCustomType(h.entries(), "pi-context/boot") as Array<{ details: { windowId: string } }>
    const forkRoot = boots.at(-1)!.details.windowId
    expect(forkRoot).not.toBe(parentRoot)
    const seen = conversation(h.requests[0]!)
    expect(seen.join("\n")).toContain("GAMMA")
    expect(seen.filter((line) => line.includes("## Context window"))).toHaveLength(1)
    expect(seen.join("\n")).toContain(`Current window: ${forkRoot}`)
    const read = h.entries().filter((entry) => entry.type === "message" && entry.message.role === "toolResult").at(-1)
    expect(JSON.stringify(read)).toContain("PARENT-PLAN")
  })

  it("/tree summaries are empty across a marker, and untouched on branches without one", async () => {
    h = await createHarness({ settings })
    h.script([say("first answer"), say("second answer")])
    await h.prompt("first question")
    await h.prompt("second question")
    const firstAssistant = h.entries().find((entry) => entry.type === "message" && entry.message.role === "assistant")!
    h.script([say("NATIVE SUMMARY OF THE BRANCH")])
    await h.session.navigateTree(firstAssistant.id, { summarize: true })
    const native = h.entries().filter((entry) => entry.type === "branch_summary").at(-1) as { summary: string } | undefined
    expect(native?.summary).toContain("NATIVE SUMMARY")

    h.script([wipe(), say("fresh window answer")])
    await h.prompt("wipe now")
    const calls = h.faux.state.callCount
    await h.session.navigateTree(firstAssistant.id, { summarize: true })
    expect(h.faux.state.callCount).toBe(calls)
    // No summary entry carries the erased window across the navigation.
    const summaries = h.entries().filter((entry) => entry.type === "branch_summary") as Array<{ summary: string }>
    expect(summaries).toHaveLength(1)
    expect(JSON.stringify(h.branch())).not.toContain("fresh window answer")
    // A warning, which Pi keeps in the chat; its "Navigated to selected point" status would replace an info notice.
    expect(h.notices).toContainEqual({ message: expect.stringContaining("/tree summary was left empty"), level: "warning" })
  })

  it("in Pi's TUI the empty /tree summary is told by a chat entry on the branch reached, which Pi's redraw keeps", async () => {
    h = await createHarness({ settings, mode: "tui" })
    h.script([say("first answer"), wipe(), say("fresh window answer")])
    await h.prompt("first question")
    await h.prompt("wipe now")
    const firstAssistant = h.entries().find((entry) => entry.type === "message" && entry.message.role === "assistant")!
    await h.session.navigateTree(firstAssistant.id, { summarize: true })
    // Pi redraws the chat from this branch, then shows "Navigated to selected point": only an entry on it stays.
    const branch = h.branch()
    expect(branch.at(-2)?.id).toBe(firstAssistant.id)
    expect(branch.at(-1)).toMatchObject({
      type: "custom",
      customType: "pi-context/report",
      data: { kind: "text", level: "warning", title: "pi-context: the /tree summary was left empty" }
    })
    expect(h.notices.filter((notice) => notice.message.includes("/tree summary"))).toEqual([])
    // A report entry never reaches the model.
    h.script([say("after the tree")])
    await h.prompt("go on")
    expect(JSON.stringify(h.requests.at(-1))).not.toContain("summary was left empty")
  })
})
