import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { JsonObject } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, type FauxResponseFactory, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { ConsentYes } from "../../src/pi/consentDialog.ts"

const call = (name: string, args: JsonObject) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })
const git = (cwd: string, ...args: ReadonlyArray<string>) => execFileSync("git", [...args], { cwd, encoding: "utf8" })

/** Two notes that say the same thing in @user, and an obsolete one in @agent, written by hand. */
const seed = (root: string) => {
  mkdirSync(join(root, "user"), { recursive: true })
  mkdirSync(join(root, "agents", "pi"), { recursive: true })
  writeFileSync(join(root, "user", "prefs-a.md"), "Prefers tabs.\n")
  writeFileSync(join(root, "user", "prefs-b.md"), "Prefers tabs.\n")
  writeFileSync(join(root, "agents", "pi", "old.md"), "Use the 2019 build script.\n")
}

/** The tidy pass as the faux model plays it: list, merge the two, retire the duplicates and the obsolete note. */
const scriptedPass = (h: Harness) =>
  h.script([
    call("notes_list", {}),
    call("notes_write", { address: "@user/prefs", content: "# Preferences\nPrefers tabs.\n" }),
    call("notes_update", { address: "@user/prefs-a", retire: true }),
    call("notes_update", { address: "@user/prefs-b", retire: true }),
    call("notes_update", { address: "@agent/old", retire: true }),
    fauxAssistantMessage("Merged @user/prefs-a and @user/prefs-b into @user/prefs: the same preference twice.\nRetired @agent/old: the 2019 script is gone.")
  ])

describe("/pi-context tidy on the faux model", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("merges and retires between a before and an after commit, reports why, and one restore undoes it", async () => {
    // The user allows each change to their protected @user notes in the dialog.
    h = await createHarness({ mode: "tui", choose: () => ConsentYes })
    const root = h.dirs.notesRoot
    seed(root)
    scriptedPass(h)
    await h.prompt("/pi-context tidy")
    // In Pi's TUI the report is a chat entry.
    const entry = h.entries().filter((e) => e.type === "custom" && e.customType === "pi-context/report").at(-1) as { data: { title: string; text: string } }
    const report = `${entry.data.title}\n${entry.data.text}`
    expect(h.errors).toEqual([])

    expect(readFileSync(join(root, "user", "prefs.md"), "utf8")).toContain("# Preferences\nPrefers tabs.")
    // Writing the new @user/prefs is adding a note; retiring the two old ones needed the user's OK, each asked once.
    expect(h.dialogs.map((d) => d.title.split("\n")[0])).toEqual([
      "pi-context: allow the model to retire @user/prefs-a.md?",
      "pi-context: allow the model to retire @user/prefs-b.md?"
    ])
    for (const gone of ["user/prefs-a.md", "user/prefs-b.md", "agents/pi/old.md"]) expect(existsSync(join(root, gone))).toBe(false)
    expect(existsSync(join(root, "wastebasket", "user", "prefs-a.md"))).toBe(true)

    const short = h.session.sessionManager.getSessionId().replace(/[^A-Za-z0-9]/g, "").slice(0, 8)
    const log = git(root, "log", "--format=%h %s").trim().split("\n")
    expect(log.map((line) => line.slice(line.indexOf(" ") + 1))).toEqual([
      `tidy after (session ${short}): +4 ~0 −3`,
      `tidy before (session ${short}): +3 ~0 −0`
    ])
    const [after, before] = log.map((line) => line.split(" ")[0]!)
    expect(report).toContain("Changes it made (4):\n  - wrote @user/prefs.md\n  - retired @user/prefs-a.md\n  - retired @user/prefs-b.md\n  - retired @agent/old.md")
    expect(report).toContain("Your own @user notes: it made 3 changes there:")
    expect(report).toContain("  Retired @agent/old: the 2019 script is gone.")
    expect(report).toContain(`Undo: /pi-context notes restore all ${before}`)
    expect(report).toContain(`/pi-context notes diff ${after}`)
    const reports = readdirSync(join(root, "tidy-reports"))
    expect(reports).toHaveLength(1)
    expect(readFileSync(join(root, "tidy-reports", reports[0]!), "utf8")).toContain("retired @agent/old.md")
    // The pass ran in a session of its own: nothing of it is in the user's session.
    expect(h.entries().filter((entry) => entry.type === "message")).toEqual([])

    await h.prompt(`/pi-context notes restore all ${before}`)
    expect(h.notices.at(-1)!.message).toMatch(/^Restored every home to [0-9a-f]{12} \(\d+ notes\); the restore is commit [0-9a-f]+\.$/)
    for (const back of ["user/prefs-a.md", "user/prefs-b.md", "agents/pi/old.md"]) expect(existsSync(join(root, back))).toBe(true)
    expect(existsSync(join(root, "user", "prefs.md"))).toBe(false)
    expect(existsSync(join(root, "wastebasket", "user", "prefs-a.md"))).toBe(false)
  })

  it("in Pi's TUI the report is a chat entry, which the next notice does not replace; a refusal is a warning", async () => {
    h = await createHarness({ mode: "tui" })
    seed(h.dirs.notesRoot)
    scriptedPass(h)
    await h.prompt("/pi-context tidy --dry-run")
    await h.prompt("/pi-context tidy --force")
    const reports = h.entries().filter((entry) => entry.type === "custom" && entry.customType === "pi-context/report")
    expect(reports).toHaveLength(1)
    expect(reports[0]).toMatchObject({ data: { kind: "text", title: "pi-context tidy (dry run: nothing was changed)" } })
    expect(JSON.stringify(reports[0])).toContain("Changes it would have made (4):")
    expect(h.notices).toEqual([
      { message: "pi-context tidy: unknown argument \"--force\". Use /pi-context tidy or /pi-context tidy --dry-run.", level: "warning" }
    ])
    expect(h.errors).toEqual([])
  })

  it("a dry run lists what it would do and changes nothing", async () => {
    h = await createHarness()
    const root = h.dirs.notesRoot
    seed(root)
    scriptedPass(h)
    await h.prompt("/pi-context tidy --dry-run")
    const report = h.notices.at(-1)!.message
    expect(report).toContain("pi-context tidy (dry run: nothing was changed)")
    expect(report).toContain("Changes it would have made (4):\n  - wrote @user/prefs.md\n  - retired @user/prefs-a.md")
    expect(report).not.toContain("Undo:")
    expect(readFileSync(join(root, "user", "prefs-a.md"), "utf8")).toBe("Prefers tabs.\n")
    for (const kept of ["user/prefs-b.md", "agents/pi/old.md"]) expect(existsSync(join(root, kept))).toBe(true)
    expect(existsSync(join(root, "user", "prefs.md"))).toBe(false)
    expect(existsSync(join(root, "wastebasket"))).toBe(false)
    expect(existsSync(join(root, ".git"))).toBe(false)
    expect(h.errors).toEqual([])
  })

  it("a tidyModel Pi does not know stops the pass with a report that says so, and changes no note", async () => {
    h = await createHarness({ settings: { "pi-context": { tidyModel: "nowhere/none" } } })
    const root = h.dirs.notesRoot
    seed(root)
    await h.prompt("/pi-context tidy")
    const report = h.notices.at(-1)!.message
    expect(report).toContain("No changes.")
    expect(report).toContain(`The pass stopped: the tidyModel setting names "nowhere/none", which Pi does not know; use provider/model-id`)
    expect(readFileSync(join(root, "user", "prefs-a.md"), "utf8")).toBe("Prefers tabs.\n")
  })

  it("a model that never stops calling tools is stopped at the turn limit, and the lock and the command are released", async () => {
    h = await createHarness({ settings: { "pi-context": { tidyTurnLimit: 5 } } })
    const root = h.dirs.notesRoot
    seed(root)
    h.script(Array.from({ length: 400 }, () => call("notes_list", {})))
    await h.prompt("/pi-context tidy --dry-run")
    const report = h.notices.at(-1)!.message
    expect(report).toContain("The pass stopped: it reached its limit of 5 model turns (setting tidyTurnLimit)")
    expect(h.faux.getPendingResponseCount()).toBeGreaterThanOrEqual(390)
    expect(existsSync(join(root, ".tidy.lock"))).toBe(false)
    expect(h.errors).toEqual([])
  })

  it("a model that does not answer is stopped at the time limit", async () => {
    h = await createHarness({ settings: { "pi-context": { tidyTimeLimitSeconds: 1 } } })
    seed(h.dirs.notesRoot)
    const hanging: FauxResponseFactory = (_context, options) =>
      new Promise((resolve) => {
        options?.signal?.addEventListener("abort", () => resolve(fauxAssistantMessage("", { stopReason: "aborted" })))
      })
    h.script([hanging])
    const started = Date.now()
    await h.prompt("/pi-context tidy --dry-run")
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(h.notices.at(-1)!.message).toContain("The pass stopped: it ran for its time limit of 1 second (setting tidyTimeLimitSeconds)")
    expect(existsSync(join(h.dirs.notesRoot, ".tidy.lock"))).toBe(false)
  })
})
