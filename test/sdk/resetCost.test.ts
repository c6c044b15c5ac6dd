import { spawnSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SessionManager } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it, vi } from "vitest"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"
import { checkpointAndWipe, say } from "../support/steps.ts"

/**
 * What a reset costs Pi: written once, inside the hook (Pi applies no drafts,
 * and checks no edit against the whole branch), its edits a batch per write
 * with the event loop's turn between batches, so that Pi's own SIGTERM
 * handler ends a process in the middle of a large reset. bench/resetEdits.ts
 * gives the figures.
 */
const markerType = "pi-context/reset-marker"
const kindsFrom = (entries: ReadonlyArray<{ type: string; customType?: string }>) =>
  entries.map((e) => (e.type === "custom" || e.type === "custom_message" ? `${e.type}:${e.customType}` : e.type))
/** Pi's own context: the messages it counts for its footer and its compaction threshold. */
const piContext = (h: Harness) =>
  h.session.sessionManager.buildSessionProjection().messages.filter((m) => m.role !== "system").map((m) => (m.role === "custom" ? m.customType : m.role))

describe("a reset's cost to Pi", () => {
  let h: Harness
  afterEach(async () => {
    vi.restoreAllMocks()
    await h?.dispose()
  })

  it("the model's reset during a run is written once, by the hook: marker, one edit per entry Pi held, boot, continuation; Pi applies none of it", async () => {
    h = await createHarness()
    h.script([say("working on it"), checkpointAndWipe(), say("fresh start")])
    await h.prompt("an earlier request")
    const edits = vi.spyOn(SessionManager.prototype, "appendContextEdit")
    await h.prompt("checkpoint then wipe")
    // Pi's own append checks each edit against the whole branch; a boundary returned to Pi goes through it twice.
    expect(edits).not.toHaveBeenCalled()
    const all = h.session.sessionManager.getBranch()
    const marker = all.findIndex((e) => e.type === "custom" && e.customType === markerType)
    const boundary = kindsFrom(all.slice(marker))
    const editCount = boundary.filter((kind) => kind === "context_edit").length
    expect(editCount).toBeGreaterThan(4)
    expect(boundary.slice(0, editCount + 3)).toEqual([
      `custom:${markerType}`,
      ...Array.from({ length: editCount }, () => "context_edit"),
      "custom_message:pi-context/boot",
      "custom_message:pi-context/continuation"
    ])
    expect(piContext(h)).toEqual(["pi-context/boot", "pi-context/continuation", "assistant"])
    expect(h.errors).toEqual([])
  })

  it("a reset cut off among its context edits: start-up hides what they left in Pi's context before it completes the boundary", async () => {
    const dirs = makeDirs()
    const sessions = join(dirs.root, "sessions")
    h = await createHarness({ dirs, sessionManager: (cwd) => SessionManager.create(cwd, sessions) })
    h.script([say("one"), say("two"), checkpointAndWipe(), say("fresh")])
    await h.prompt("first")
    await h.prompt("second")
    await h.prompt("wipe")
    const file = h.session.sessionManager.getSessionFile()!
    await h.dispose()
    // Killed after the marker and two of its edits.
    const lines = readFileSync(file, "utf8").trimEnd().split("\n")
    const markerLine = lines.findLastIndex((line) => line.includes(markerType))
    writeFileSync(file, `${lines.slice(0, markerLine + 3).join("\n")}\n`)
    expect(JSON.parse(lines[markerLine + 2]!).type).toBe("context_edit")

    h = await createHarness({ dirs, sessionManager: (cwd) => SessionManager.open(file, sessions, cwd) })
    h.script([say("resumed")])
    await h.prompt("go on")
    expect(piContext(h)).toEqual(["pi-context/boot", "pi-context/continuation", "user", "assistant"])
    // The chat still holds the ended window.
    const chat = JSON.stringify(h.session.sessionManager.buildContextEntries())
    for (const said of ["first", "second", "one", "two"]) expect(chat).toContain(said)
  })

  it("a SIGTERM during a large reset ends the process before the boundary is finished (Pi's handler gets its turn)", () => {
    const child = spawnSync(process.execPath, ["--experimental-strip-types", "--no-warnings", join(import.meta.dirname, "fixtures", "sigtermDuringReset.ts")], {
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" },
      timeout: 240_000
    })
    expect(child.stderr).not.toMatch(/Error/)
    expect(child.stdout).toContain("SIGTERM handled; boundary finished: false")
    expect(child.stdout).not.toContain("reset done")
    expect(child.status).toBe(143)
  }, 300_000)
})
