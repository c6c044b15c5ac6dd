import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { type ExtensionAPI, type SessionEntry, SessionManager } from "@earendil-works/pi-coding-agent"
import { Type } from "typebox"
import { afterEach, describe, expect, it } from "vitest"
import { conversation, ofCustomType } from "../support/entries.ts"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"
import { dirsWith, filler, markers, renderMarker, smallWindow } from "../support/resetMarkers.ts"
import { checkpointAndWipe, say } from "../support/steps.ts"

/**
 * What the user sees of resets and of the budget, in Pi's real loop: the
 * reset's chat entry and compaction summary, notices with the numbers of the
 * moment they are shown, and the /compact notice fitted to the branch.
 */
const { contextWindow, lines } = smallWindow

const render = (h: Harness, entry: SessionEntry, expanded = false) => renderMarker(h, entry, expanded)

/** A tool that returns `tokens` tokens of text, to move the window in one tool turn. */
const bulkTool = (tokens: number) => (pi: ExtensionAPI) =>
  pi.registerTool({
    name: "bulk",
    label: "bulk",
    description: "returns a large text",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "y".repeat(tokens * 4) }], details: {} })
  })

describe("resets that explain themselves", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("a model reset writes a chat entry with its kind, how full the window got, the new w-number, the notes indexed and the checkpoint", async () => {
    h = await createHarness()
    h.script([say("working"), checkpointAndWipe(), say("fresh start")])
    await h.prompt("remember ZEBRA")
    await h.prompt("now wipe")
    const [marker] = markers(h)
    const data = (marker as { data: Record<string, any> }).data
    expect(data.source).toBe("tool")
    expect(data.shown).toMatchObject({ ordinal: 2, notesIndexed: 1, checkpointed: true, contextWindow: expect.any(Number) })
    expect(data.shown.peakTokens).toBeGreaterThan(0)
    const percent = Math.round((data.shown.peakTokens / data.shown.contextWindow) * 100)
    const line = render(h, marker!)
    expect(line).toContain("context reset: the model called wipe_memory")
    expect(line).toContain(`w1 peaked at ${percent}%`)
    expect(line).toContain("w2 starts from 1 note")
    expect(line).toContain("· checkpointed")
    expect(line).not.toContain("pcx:")
    expect(render(h, marker!, true)).toContain("The model wrote or updated notes in w1")
    // At 80 columns the divider breaks between its phrases, never inside one, and no line is wider than the terminal.
    const narrow = renderMarker(h, marker!, false, 80)
    for (const row of narrow.split("\n")) expect(row.length).toBeLessThanOrEqual(80)
    expect(narrow).toMatch(/^── context reset: the model called wipe_memory\n {3}w1 peaked at \d+% \([\d,]+ tokens\) · w2 starts from 1 note · checkpointed ──$/)
    // The notice names the kind and the w-number, never the opaque id.
    const notice = h.notices.find((n) => n.message.includes("context reset"))!
    expect(notice.message).toBe("pi-context: context reset (the model called wipe_memory) · w2 starts from your notes")
  })

  it("a reset compacts nothing: no compaction entry for Pi to draw or count, and nothing summarised reaches the model", async () => {
    h = await createHarness()
    h.script([checkpointAndWipe(), say("fresh start")])
    await h.prompt("wipe now")
    expect(h.allEntries().filter((e) => e.type === "compaction")).toEqual([])
    const fresh = conversation(h.requests.at(-1)!).join("\n")
    expect(fresh).not.toContain("compacted into the following summary")
  })

  it("/wipe-memory gets the same chat entry, with no checkpoint when no note was written", async () => {
    h = await createHarness()
    h.script([say("hi")])
    await h.prompt("hello")
    await h.prompt("/wipe-memory")
    const [marker] = markers(h)
    expect((marker as { data: Record<string, any> }).data).toMatchObject({ source: "command", shown: { ordinal: 2, checkpointed: false, notesIndexed: 0 } })
    expect(render(h, marker!)).toContain("context reset: /wipe-memory")
    expect(render(h, marker!)).toContain("w2 starts from 0 notes · no checkpoint")
    expect(h.notices.at(-1)!.message).toBe("pi-context: context reset (/wipe-memory) · w2 starts from your notes")
  })

  it("an overflow and the hard line say so in their chat entry, with no checkpoint when none was written", async () => {
    h = await createHarness()
    const overflow = fauxAssistantMessage("", { stopReason: "error", errorMessage: "prompt is too long: 250000 tokens > 200000 maximum" })
    h.script([say("ok"), overflow, say("answered in the fresh window")])
    await h.prompt("hello")
    await h.prompt("a huge request")
    const [marker] = markers(h)
    expect((marker as { data: Record<string, any> }).data).toMatchObject({ source: "overflow", shown: { ordinal: 2, checkpointed: false } })
    expect(render(h, marker!)).toMatch(/^── context reset: provider overflow · w1 peaked at \d+% .* · w2 starts from 0 notes · no checkpoint ──$/)
    expect(h.notices.map((n) => n.message)).toContainEqual("pi-context: context reset (provider overflow) · w2 starts from your notes")
  })

  it("a finished reply past the hard line resets with a chat entry that says so", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), say("a reply that ends past the hard line")])
    await h.prompt("hello")
    await h.prompt(filler(6_500))
    const [marker] = markers(h)
    expect((marker as { data: Record<string, any> }).data.source).toBe("hard-line")
    const line = render(h, marker!)
    expect(line).toContain("context reset: hard line reached")
    const percent = Number(/w1 peaked at (\d+)%/.exec(line)![1])
    expect(percent).toBeGreaterThanOrEqual(80)
  })

  it("after /wipe-memory the status line and /pi-context status agree: the new window's usage is an estimate until its first reply", async () => {
    h = await createHarness()
    h.script([say("hi"), say("fresh")])
    await h.prompt("hello")
    await h.prompt("/wipe-memory")
    const percent = /^pi-context · (~\d+%) · w2$/.exec(h.statuses.at(-1)!.text!)![1]!
    await h.prompt("/pi-context status")
    expect(h.notices.at(-1)!.message).toContain(`(${percent})`)
    expect(h.notices.at(-1)!.message).toContain("an estimate until a reply in this window reports its usage")
    expect(h.notices.at(-1)!.message).toContain("window: w2 ")
    await h.prompt("go on")
    expect(h.statuses.at(-1)!.text).toMatch(/^pi-context · \d+% · w2$/)
  })

  it("an old marker without the new fields still renders, as a reset of unknown kind", async () => {
    h = await createHarness()
    const line = render(h, { type: "custom", customType: "pi-context/reset-marker", data: { windowId: "pcx:abc:1234" }, id: "e1", parentId: null, timestamp: "" } as never)
    expect(line).toContain("context reset (reset) · a new window starts from the notes")
    expect(line).not.toContain("pcx:")
  })
})

describe("budget notices carry the figures the model was given", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("a guidance staged before a big tool result is announced with the figures the model was told, as told", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow, extraExtensions: [bulkTool(4_000)], tools: ["bulk"] })
    h.script([
      say("ok"),
      // The crossing request stages the guidance (about 5,000 tokens left); the tool's result takes the window past the hard line.
      fauxAssistantMessage([fauxToolCall("bulk", {})], { stopReason: "toolUse" }),
      say("done"),
      say("after the close-out")
    ])
    await h.prompt("hello")
    await h.prompt(filler(2_500))
    const guidance = h.notices.filter((n) => n.message.includes("the model was asked to write its notes"))
    expect(guidance).toHaveLength(1)
    // The tool turn took the window past the hard line since; the notice says what the model was asked, with its figures.
    const told = (ofCustomType(h.entries(), "pi-context/guidance")[0] as { content: string }).content
    const figures = (text: string) => text.match(/\d[\d,]*/g)
    expect(guidance[0]!.message).toMatch(/^pi-context: the model was asked to write its notes, with [\d,]+ tokens before the final warning and [\d,]+ before the automatic reset\.$/)
    expect(figures(guidance[0]!.message)).toEqual(figures(told))
  })

  it("with automaticReset off, the warning tells what is left in the window, not 0 tokens", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": { ...lines, automaticReset: false } }), contextWindow })
    h.script([say("ok"), say("noted")])
    await h.prompt("hello")
    await h.prompt(filler(4_500))
    const warnings = ofCustomType(h.entries(), "pi-context/warning") as ReadonlyArray<{ content: string }>
    expect(warnings).toHaveLength(1)
    const remain = Number(/about ([\d,]+) tokens were left before this window is full/.exec(warnings[0]!.content)![1]!.replace(/,/g, ""))
    expect(remain).toBeGreaterThan(lines.hardLine)
    const notice = h.notices.find((n) => n.message.includes("final warning sent"))!
    expect(notice.message).toMatch(/final warning sent to the model with [\d,]+ tokens left in the window \(automatic reset is off\)/)
  })
})

describe("the /compact notice fits the branch", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  const compactable = { compaction: { enabled: false, keepRecentTokens: 1 } }
  const compactNotice = async (h: Harness) => {
    await h.session.compact().catch(() => undefined)
    return h.notices.filter((n) => n.message.includes("native compaction is cancelled")).at(-1)!
  }

  it("on a branch without resets: pi-context owns the window, /wipe-memory, nothing about erased history", async () => {
    h = await createHarness({ settings: compactable })
    h.script([say("hi"), say("again")])
    await h.prompt("hello")
    await h.prompt("more")
    const notice = await compactNotice(h)
    expect(notice.message).toContain("pi-context owns this context window")
    expect(notice.message).toContain("/wipe-memory")
    expect(notice.message).not.toContain("erased history")
  })

  it("after a reset: it would summarise erased history; /pi-context off is not offered (it would not allow compaction here)", async () => {
    h = await createHarness({ settings: compactable })
    h.script([checkpointAndWipe(), say("fresh"), say("more")])
    await h.prompt("wipe")
    await h.prompt("go on")
    const notice = await compactNotice(h)
    expect(notice.message).toContain("erased history")
    expect(notice.message).toContain("/wipe-memory")
    expect(notice.message).not.toContain("/pi-context off")
  })
})

describe("the status line", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("takes Pi's theme colours past the guidance line and past the warning line, and agrees with /pi-context status", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), say("fuller"), say("fullest")])
    await h.prompt("hello")
    const plain = h.statuses.at(-1)!.text!
    expect(plain).toMatch(/^pi-context · \d+% · w1$/)
    await h.prompt(filler(2_500))
    expect(h.statuses.at(-1)!.text).toMatch(/^<warning>pi-context · \d+% · w1<\/warning>$/)
    await h.prompt(filler(1_500, "y"))
    const status = h.statuses.at(-1)!.text!
    expect(status).toMatch(/^<error>pi-context · \d+% · w1<\/error>$/)
    await h.prompt("/pi-context status")
    const percent = /(\d+)%/.exec(status)![1]
    expect(h.notices.at(-1)!.message).toContain(`(${percent}%)`)
  })

  it("says when a /wipe-memory waits for the run to finish", async () => {
    h = await createHarness()
    h.script([
      () => {
        void h.session.prompt("/wipe-memory")
        return say("still working")
      },
      say("fresh")
    ])
    await h.prompt("work")
    await h.waitForIdle()
    expect(h.statuses.some((s) => s.text?.endsWith("· will reset when idle") === true)).toBe(true)
    expect(h.notices.map((n) => n.message)).toContainEqual(expect.stringContaining("will reset when idle"))
  })
})

describe("the trace", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  const traceFile = (h: Harness) => {
    const dir = join(h.dirs.agentDir, "pi-context", "traces")
    return readdirSync(dir).map((name) => readFileSync(join(dir, name), "utf8")).join("").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>)
  }

  it("follows the window across a reset, traces every budget decision with its numbers, and shows reason and source per line", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    h.script([say("ok"), checkpointAndWipe(), say("fresh")])
    await h.prompt("hello")
    await h.prompt(filler(2_500))
    await h.prompt("/pi-context trace")
    const lines_ = traceFile(h)
    const reminder = lines_.find((l) => l.event === "budget.reminder")!
    expect(reminder).toMatchObject({ kind: "guidance", reason: "guidance line crossed", line: lines.guidanceLine, window: "w1" })
    expect(reminder.left).toBeLessThanOrEqual(lines.guidanceLine)
    const commit = lines_.findIndex((l) => l.event === "boundary.commit")
    expect(lines_[commit]).toMatchObject({ source: "tool", toWindow: "w2", window: "w1" })
    // Just before it, how the ending window went, as /pi-context report tells it.
    expect(lines_[commit - 1]).toMatchObject({ event: "reset.signals", window: "w1", checkpointWritten: true, notesReadAfterReset: "first window" })
    // Everything after the boundary is traced in the new window, without waiting for the next session start.
    for (const line of lines_.slice(commit + 1)) expect(line.window).toBe("w2")
    const report = h.notices.at(-1)!.message.split("\n")
    expect(report[0]).toMatch(/^pi-context trace: /)
    expect(report).toContainEqual(expect.stringMatching(/^ {2}\d\d:\d\d:\d\d w1 +budget\.reminder: guidance line crossed$/))
    expect(report).toContainEqual(expect.stringMatching(/^ {2}\d\d:\d\d:\d\d w1 +boundary\.commit \[tool\]: /))
  })

  it("traces the hard line and the close-out with their numbers", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow, extraExtensions: [bulkTool(4_000)], tools: ["bulk"] })
    h.script([say("ok"), fauxAssistantMessage([fauxToolCall("bulk", {})], { stopReason: "toolUse" }), say("closing out"), say("fresh")])
    await h.prompt("hello")
    await h.prompt(filler(2_500))
    const lines_ = traceFile(h)
    const closeOut = lines_.find((l) => l.event === "budget.close-out")!
    expect(closeOut).toMatchObject({ line: lines.hardLine })
    expect(closeOut.left).toBeLessThanOrEqual(lines.hardLine)
    expect(lines_.find((l) => l.event === "budget.hard-line")).toMatchObject({ line: lines.hardLine, reason: "the turn ended past the hard line" })
  })
})

describe("/pi-context notes", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("lists the root, counts per home and the notes newest first; reads one; shows the boot the model got", async () => {
    h = await createHarness()
    h.script([
      fauxAssistantMessage([fauxToolCall("notes_write", { address: "plan", content: "# Plan\nstep one" })], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxToolCall("notes_write", { address: "@project/decisions", content: "# Decisions\nuse sqlite" })], {
        stopReason: "toolUse"
      }),
      say("noted")
    ])
    await h.prompt("write two notes")
    await h.prompt("/pi-context notes")
    const overview = h.notices.at(-1)!.message.split("\n")
    expect(overview[0]).toBe(`pi-context notes · 2 notes · root ${h.dirs.notesRoot}`)
    expect(overview[1]).toBe("  session 1 · project 1 · user 0 · agent 0 · model 0")
    // Newest first, with size, age and title.
    expect(overview[2]).toMatch(/^ {2}@project\/decisions\.md +\d+ B · just now +# Decisions|^ {2}@project\/decisions\.md +\d+ B · just now +Decisions/)
    expect(overview[3]).toMatch(/^ {2}plan\.md +\d+ B · just now +(# )?Plan/)

    await h.prompt("/pi-context notes read plan")
    expect(h.notices.at(-1)!.message).toMatch(/^plan\.md · \d+ B\n# Plan\nstep one/)

    await h.prompt("/pi-context notes boot")
    const boot = h.notices.at(-1)!.message
    expect(boot).toMatch(/^What the model got: the boot of w1, as sent\n## Context window/)
    const sent = conversation(h.requests[0]!).find((line) => line.startsWith("user: ## Context window"))!
    expect(boot.split("\n").slice(1).join("\n")).toBe(sent.slice("user: ".length))

    await h.prompt("/pi-context notes edit plan") // the editor is cancelled: nothing changes
    expect(h.notices.at(-1)!.message).toBe("pi-context: plan.md unchanged.")

    await h.prompt("/pi-context notes read nowhere")
    // The reason follows the colon, as a sentence with its fix.
    expect(h.notices.at(-1)).toMatchObject({ level: "warning", message: "pi-context: cannot read nowhere: there is no note at nowhere.md; /pi-context notes lists them." })
  })
})

describe("/pi-context notes counts what it lists", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("a home's MAP.md is one of the notes the header and the home's count name, as it is one of the rows", async () => {
    h = await createHarness()
    const write = (address: string, content: string) =>
      fauxAssistantMessage([fauxToolCall("notes_write", { address, content })], { stopReason: "toolUse" })
    h.script([write("plan", "# Plan\nstep one"), write("checkpoint", "# Checkpoint\ngoal"), write("MAP", "# Map\nplan: the plan"), write("@project/decisions", "# Decisions"), say("noted")])
    await h.prompt("write four notes")
    await h.prompt("/pi-context notes")
    const overview = h.notices.at(-1)!.message.split("\n")
    const rows = overview.filter((line) => /^ {2}\S+\.md +\d+ B · /.test(line))
    expect(rows).toHaveLength(4)
    expect(overview[0]).toBe(`pi-context notes · 4 notes · root ${h.dirs.notesRoot}`)
    expect(overview[1]).toBe("  session 3 · project 1 · user 0 · agent 0 · model 0")
    expect(overview.join("\n")).not.toContain("older")
  })
})

describe("a session with resets, opened again", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("says its resets were not compactions, with the current w-number (Pi's own line says 'Session compacted N times')", async () => {
    const dirs = makeDirs()
    const sessions = join(dirs.root, "sessions")
    h = await createHarness({ dirs, sessionManager: (cwd) => SessionManager.create(cwd, sessions) })
    h.script([checkpointAndWipe(), say("fresh")])
    await h.prompt("wipe")
    await h.prompt("/wipe-memory")
    expect(h.notices.map((n) => n.message).join("\n")).not.toContain("not compactions")
    const file = h.session.sessionManager.getSessionFile()!
    await h.dispose()
    h = await createHarness({ dirs, sessionManager: (cwd) => SessionManager.open(file, sessions, cwd) })
    await h.prompt("/pi-context status") // a command waits for start-up
    expect(h.notices).toContainEqual({
      level: "info",
      message: "pi-context: this branch had 2 context resets, not compactions: nothing was summarised. The model is in window w3; /pi-context windows lists them."
    })
  })
})
