import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { JsonObject } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { createHarness, type Harness } from "../support/sdkHarness.ts"

const call = (name: string, args: JsonObject) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })
const say = (text: string) => fauxAssistantMessage(text)
const git = (cwd: string, ...args: ReadonlyArray<string>) => execFileSync("git", [...args], { cwd, encoding: "utf8" })

describe("note versions in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("a wipe_memory boundary commits the window's notes, and /pi-context notes lists, diffs and restores them", async () => {
    h = await createHarness()
    const short = h.session.sessionManager.getSessionId().replace(/[^A-Za-z0-9]/g, "").slice(0, 8)
    h.script([call("notes_write", { address: "@project/decisions", content: "# Decisions\nuse sqlite\n" }), call("wipe_memory", {}), say("fresh window")])
    await h.prompt("decide, then wipe")
    // The history command waits for a commit still in flight on this root (the faux model answers faster than git commits).
    await h.prompt("/pi-context notes versions")
    expect(h.notices.at(-1)!.message).toContain(`w1 of session ${short}: +1 ~0 −0`)
    h.script([call("notes_write", { address: "@project/decisions", content: "overwritten by mistake\n" }), call("wipe_memory", {}), say("another window")])
    await h.prompt("overwrite, then wipe")

    await h.prompt("/pi-context notes versions @project/decisions")
    const listing = h.notices.at(-1)!.message
    expect(listing).toContain(`w2 of session ${short}: +0 ~1 −0`)
    expect(listing).toContain(`w1 of session ${short}: +1 ~0 −0`)
    // `history`, the word the command had before, still lists the versions.
    await h.prompt("/pi-context notes history @project/decisions")
    expect(h.notices.at(-1)!.message).toBe(listing)
    const subjects = git(h.dirs.notesRoot, "log", "--format=%h %s").trim().split("\n")
    expect(subjects).toHaveLength(2)
    const first = subjects[1]!.split(" ")[0]!

    await h.prompt(`/pi-context notes diff ${first} @project/decisions`)
    expect(h.notices.at(-1)!.message).toContain("+use sqlite")
    await h.prompt(`/pi-context notes restore @project/decisions ${first}`)
    expect(h.notices.at(-1)!.message).toMatch(/^Restored @project\/decisions\.md to its version in [0-9a-f]+; the restore is commit [0-9a-f]+\.$/)
    expect(git(h.dirs.notesRoot, "log", "-1", "--format=%s").trim()).toBe(`restore @project/decisions.md to ${git(h.dirs.notesRoot, "rev-parse", first).trim().slice(0, 12)} (session ${short})`)
    // With versions there, the overview offers their commands.
    await h.prompt("/pi-context notes")
    expect(h.notices.at(-1)!.message).toContain("Versions: /pi-context notes versions")
    // `/pi-context notes` alone browses the notes (issue 12); an incomplete history command shows its usage.
    await h.prompt("/pi-context notes restore")
    expect(h.notices.at(-1)!.message).toContain("/pi-context notes restore <address> <commit>")
    expect(h.errors).toEqual([])
  })

  it("in Pi's TUI the history and a diff are chat entries, which the next notice does not replace", async () => {
    h = await createHarness({ mode: "tui" })
    h.script([call("notes_write", { address: "@project/decisions", content: "# Decisions\nuse sqlite\n" }), call("wipe_memory", {}), say("fresh window")])
    await h.prompt("decide, then wipe")
    await h.prompt("/pi-context notes versions")
    const first = git(h.dirs.notesRoot, "log", "-1", "--format=%h").trim()
    await h.prompt(`/pi-context notes diff ${first} @project/decisions`)
    await h.prompt("/pi-context notes diff")
    const reports = h.entries().flatMap((entry) => entry.type === "custom" && entry.customType === "pi-context/report" ? [entry.data as { title: string; text: string }] : [])
    expect(reports.map((report) => report.title)).toEqual(["Note versions, newest first:", `pi-context notes diff ${first} @project/decisions`])
    expect(reports[0]!.text).toContain(first)
    expect(reports[1]!.text).toContain("+use sqlite")
    // The usage is still a notice; neither report was one.
    expect(h.notices.filter((notice) => notice.message.includes("use sqlite") || notice.message.startsWith("Note versions"))).toEqual([])
    expect(h.notices.at(-1)!.message).toContain("/pi-context notes diff <commit> [address]")
    expect(h.errors).toEqual([])
  })

  it("a restore after a note was edited by hand (saved, not yet committed) keeps the edit in the history, one restore away", async () => {
    h = await createHarness()
    const short = h.session.sessionManager.getSessionId().replace(/[^A-Za-z0-9]/g, "").slice(0, 8)
    h.script([call("notes_write", { address: "@project/decisions", content: "# Decisions\nuse sqlite\n" }), call("wipe_memory", {}), say("fresh window")])
    await h.prompt("decide, then wipe")
    await h.prompt("/pi-context notes versions @project/decisions")
    const first = git(h.dirs.notesRoot, "rev-parse", "--short", "HEAD").trim()
    // The user edits the note in their editor and saves it; no boundary has committed it yet.
    const file = git(h.dirs.notesRoot, "ls-files", "projects").trim()
    writeFileSync(join(h.dirs.notesRoot, file), readFileSync(join(h.dirs.notesRoot, file), "utf8").replace("use sqlite", "use postgres, decided by hand"))

    await h.prompt(`/pi-context notes restore @project/decisions ${first}`)
    expect(h.notices.at(-1)!.message).toMatch(/^Restored @project\/decisions\.md to its version in [0-9a-f]+; the restore is commit [0-9a-f]+\.$/)
    expect(readFileSync(join(h.dirs.notesRoot, file), "utf8")).toContain("use sqlite")
    expect(git(h.dirs.notesRoot, "log", "-2", "--format=%s").trim().split("\n")[1]).toBe(`before restore of @project/decisions.md (session ${short}): +0 ~1 −0`)
    expect(git(h.dirs.notesRoot, "show", `HEAD~1:${file}`)).toContain("use postgres, decided by hand")

    await h.prompt(`/pi-context notes restore @project/decisions ${git(h.dirs.notesRoot, "rev-parse", "--short", "HEAD~1").trim()}`)
    expect(readFileSync(join(h.dirs.notesRoot, file), "utf8")).toContain("use postgres, decided by hand")
    expect(h.errors).toEqual([])
  })
})
