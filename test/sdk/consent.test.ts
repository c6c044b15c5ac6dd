import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { conversation } from "../support/entries.ts"
import { createHarness, type Harness, type HarnessDirs, makeDirs } from "../support/sdkHarness.ts"
import { call, checkpointAndWipe, say } from "../support/steps.ts"
import { ConsentGuardMs, ConsentNo, ConsentYes } from "../../src/pi/consentDialog.ts"
import { AwaitKeys } from "../support/uiCapture.ts"

/** Pi's global settings file, as a user writes it. */
const dirsWith = (settings: Record<string, unknown>): HarnessDirs => {
  const dirs = makeDirs()
  mkdirSync(dirs.agentDir, { recursive: true })
  writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify(settings, null, 2))
  return dirs
}

/** The user's own note, written by them before the session. */
const userNote = (h: Harness, name: string) => join(h.dirs.notesRoot, "user", `${name}.md`)
const seedPreferences = (dirs: HarnessDirs) => {
  mkdirSync(join(dirs.notesRoot, "user"), { recursive: true })
  writeFileSync(join(dirs.notesRoot, "user", "preferences.md"), "# Preferences\ntabs, not spaces\n")
}

const results = (h: Harness) =>
  h.entries().flatMap((entry) =>
    entry.type === "message" && entry.message.role === "toolResult"
      ? [{ text: JSON.stringify(entry.message.content), isError: entry.message.isError, code: (entry.message.details as { code?: string } | undefined)?.code }]
      : []
  )

describe("the user's say over their notes, in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("a protected home takes new notes, but where no user can answer an existing note keeps its text: rewrite, edit and retire are refused", async () => {
    const dirs = makeDirs()
    seedPreferences(dirs)
    h = await createHarness({ dirs })
    h.script([
      call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces\n" }),
      call("notes_update", { address: "@user/preferences", edits: [{ oldText: "tabs", newText: "spaces" }] }),
      call("notes_update", { address: "@user/preferences", retire: true }),
      call("notes_write", { address: "@user/editor", content: "# Editor\nvim\n" }),
      say("done")
    ])
    await h.prompt("change my preferences")
    const [rewrite, edit, retire, added] = results(h)
    for (const refused of [rewrite, edit, retire]) {
      expect(refused!.isError).toBe(true)
      expect(refused!.code).toBe("protected")
      expect(refused!.text).toContain("@user is protected (pi-context.protectedHomes): no user could be asked to allow the change to @user/preferences.md, which keeps its text")
    }
    expect(readFileSync(userNote(h, "preferences"), "utf8")).toBe("# Preferences\ntabs, not spaces\n")
    // (the note the user wrote by hand keeps even its lack of frontmatter: it was never rewritten)
    expect(added!.isError).toBe(false)
    expect(readFileSync(userNote(h, "editor"), "utf8")).toContain("# Editor\nvim\n")
  })

  it("in Pi's TUI the user is asked, sees the change as a diff, and their answer decides", async () => {
    const dirs = makeDirs()
    seedPreferences(dirs)
    const answers = [ConsentNo, ConsentYes]
    h = await createHarness({ dirs, mode: "tui", choose: () => answers.shift() })
    h.script([
      call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces, not tabs\n" }),
      call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces, not tabs\n" }),
      say("done")
    ])
    await h.prompt("change my preferences")
    expect(h.dialogs).toHaveLength(2)
    expect(h.dialogs[0]!.title.split("\n")[0]).toBe("pi-context: allow the model to rewrite @user/preferences.md?")
    // No comes first, so Enter alone declines; the diff takes the theme's colours.
    expect(h.dialogs[0]!.options).toEqual([ConsentNo, ConsentYes])
    expect(h.dialogs[0]!.title).toContain("<toolDiffRemoved>- tabs, not spaces</toolDiffRemoved>\n<toolDiffAdded>+ spaces, not tabs</toolDiffAdded>")
    const [declined, allowed] = results(h)
    expect(declined!.code).toBe("protected")
    expect(declined!.text).toContain("the user declined the change to @user/preferences.md")
    expect(allowed!.isError).toBe(false)
    expect(readFileSync(userNote(h, "preferences"), "utf8")).toContain("# Preferences\nspaces, not tabs\n")
  })

  it("a read-only home takes nothing from the model, not even a new note; other homes are as before", async () => {
    const settings = { "pi-context": { readOnlyHomes: ["@project"], protectedHomes: [] } }
    // The files pi-context's status reads, and Pi's own merged settings, as a user's Pi has both.
    h = await createHarness({ dirs: dirsWith(settings), settings })
    h.script([
      call("notes_write", { address: "@project/decisions", content: "# Decisions\nuse sqlite\n" }),
      call("notes_write", { address: "@user/preferences", content: "# Preferences\nshort answers\n" }),
      call("notes_write", { address: "@user/preferences", content: "# Preferences\nlong answers\n" }),
      say("done")
    ])
    await h.prompt("write notes")
    const [project, first, second] = results(h)
    expect(project!.code).toBe("protected")
    expect(project!.text).toContain("@project is read-only (pi-context.readOnlyHomes)")
    // With no protected home, the user's notes are the model's to rewrite, as before this setting.
    expect(first!.isError).toBe(false)
    expect(second!.isError).toBe(false)
    await h.prompt("/pi-context status")
    const status = h.notices.at(-1)!.message
    expect(status).toContain("read-only homes (the model may not write): @project (global: pi-context.readOnlyHomes)")
    expect(status).toContain("protected homes (the model adds notes, changes one only with your OK): none")
  })

  it("pi-context.afterReset is the user's instruction near the top of every boot, marked as theirs; a bad value is told, not used", async () => {
    const instruction = "Re-read PLAN.md and TODO.md, and run the tests before changing anything."
    h = await createHarness({ dirs: dirsWith({ "pi-context": { afterReset: instruction } }) })
    h.script([say("ok"), checkpointAndWipe(), fauxAssistantMessage("fresh")])
    await h.prompt("hello")
    await h.prompt("wipe")
    const boots = h.requests.map((request) => conversation(request)[0]!).filter((first) => first.startsWith("user: ## Context window"))
    expect(boots.length).toBeGreaterThanOrEqual(2)
    for (const boot of boots) {
      expect(boot).toContain(`## From the user, for every new window (pi-context.afterReset)\n> ${instruction}`)
      expect(boot.indexOf("From the user")).toBeLessThan(boot.indexOf("## Note homes"))
    }
    await h.prompt("/pi-context status")
    expect(h.notices.at(-1)!.message).toContain(`after a reset: ${JSON.stringify(instruction)} (global: pi-context.afterReset)`)

    await h.dispose()
    h = await createHarness({ dirs: dirsWith({ "pi-context": { afterReset: "x".repeat(1_001), protectedHomes: ["users"] } }) })
    h.script([say("ok")])
    await h.prompt("hello")
    expect(conversation(h.requests[0]!)[0]).not.toContain("From the user")
    const told = h.notices.map((notice) => notice.message).join("\n")
    expect(told).toContain("pi-context.afterReset")
    expect(told).toContain("is longer than 1,000 characters")
    expect(told).toContain('pi-context.protectedHomes = ["users"] names "users", which is no home (session, project, user, agent, model); using ["user"].')
  })

  it("a note of 1.2 MB written by hand exists though it cannot be read whole: in print mode its rewrite and retirement are refused, and so are tidy's", async () => {
    const dirs = makeDirs()
    mkdirSync(join(dirs.notesRoot, "user"), { recursive: true })
    const journal = `# Journal\n${"a day of work, written by hand.\n".repeat(40_000)}`
    writeFileSync(join(dirs.notesRoot, "user", "journal.md"), journal)
    expect(statSync(join(dirs.notesRoot, "user", "journal.md")).size).toBeGreaterThan(1_200_000)
    h = await createHarness({ dirs })
    h.script([
      call("notes_write", { address: "@user/journal", content: "# Journal\nshort\n" }),
      call("notes_update", { address: "@user/journal", retire: true }),
      say("done")
    ])
    await h.prompt("tidy my journal")
    const [rewrite, retire] = results(h)
    for (const refused of [rewrite, retire]) {
      expect(refused!.code).toBe("protected")
      expect(refused!.text).toContain("no user could be asked to allow the change to @user/journal.md")
    }
    expect(readFileSync(userNote(h, "journal"), "utf8")).toBe(journal)

    // The tidy pass's write calls meet the same gate.
    h.script([
      call("notes_write", { address: "@user/journal", content: "# Journal\ntidied\n" }),
      call("notes_update", { address: "@user/journal", retire: true }),
      say("Merged the journal.")
    ])
    await h.prompt("/pi-context tidy")
    expect(h.notices.at(-1)!.message).toContain("2 write calls were refused by the notes store and changed nothing.")
    expect(readFileSync(userNote(h, "journal"), "utf8")).toBe(journal)

    // In Pi's TUI the user is asked, sees what replaces it, and an allowed rewrite keeps the whole journal first.
    await h.dispose()
    h = await createHarness({ dirs, mode: "tui", choose: () => ConsentYes })
    h.script([call("notes_write", { address: "@user/journal", content: "# Journal\nshort\n" }), say("done")])
    await h.prompt("shorten my journal")
    const dialog = h.dialogs[0]!.title
    expect(dialog).toMatch(/<muted>Its text \(1250\.0 KB\) is too large or unreadable to show here; all of it is replaced by:<\/muted>\n<toolDiffAdded>\+ # Journal/)
    expect(dialog).not.toContain("<toolDiffRemoved>")
    expect(dialog).toContain("<toolDiffAdded>+ short</toolDiffAdded>")
    expect(results(h).at(-1)!.text).toContain("Its text before is kept in @user's wastebasket, at wastebasket/user/journal.md")
    expect(readFileSync(join(dirs.notesRoot, "wastebasket", "user", "journal.md"), "utf8")).toBe(journal)
    expect(readFileSync(userNote(h, "journal"), "utf8")).toContain("# Journal\nshort\n")
  })

  it("keys typed while the model works never answer the dialog, and a plain Enter says No", async () => {
    const dirs = makeDirs()
    seedPreferences(dirs)
    h = await createHarness({ dirs, mode: "tui", choose: () => AwaitKeys })
    h.script([
      call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces\n" }),
      call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces, not tabs\n" }),
      say("done")
    ])
    const run = h.prompt("change my preferences")
    const pause = () => new Promise((resolve) => setTimeout(resolve, ConsentGuardMs + 150))

    await h.terminal.dialogOpen()
    // The user's next prompt and its Enter, typed while the model worked, arrive as the dialog opens: none of them answers it.
    for (const key of ["o", "k", "\r"]) expect(h.terminal.press(key)).toBe(true)
    expect(h.dialogs[0]!.answer).toBeUndefined()
    await pause()
    // After a pause the keys count: Enter alone is No, the first option.
    expect(h.terminal.press("\r")).toBe(false)
    expect(h.dialogs[0]!.answer).toBe(ConsentNo)

    await h.terminal.dialogOpen()
    await pause()
    h.terminal.press("\x1b[B")
    h.terminal.press("\r")
    await run
    expect(h.dialogs.map((dialog) => dialog.answer)).toEqual([ConsentNo, ConsentYes])
    const [declined, allowed] = results(h)
    expect(declined!.text).toContain("the user declined the change to @user/preferences.md")
    expect(allowed!.isError).toBe(false)
    expect(readFileSync(userNote(h, "preferences"), "utf8")).toContain("spaces, not tabs")
    // What was typed over the dialog goes back to the editor, where it was meant to go.
    expect(h.editorTexts).toContain("ok")
  })

  it("the dialog shows the model's control and bidi characters as escapes, in the theme's colours, bounded in lines and characters", async () => {
    const dirs = makeDirs()
    seedPreferences(dirs)
    h = await createHarness({ dirs, mode: "tui", choose: () => ConsentNo })
    const forged = "spaces\r\u001b[2K\u001b[1A- tabs, not spaces\u202Eevil"
    const longLine = "x".repeat(500_000)
    const manyLines = Array.from({ length: 300 }, (_, i) => `rule ${i}`).join("\n")
    h.script([
      call("notes_write", { address: "@user/preferences", content: `# Preferences\n${forged}\n` }),
      call("notes_write", { address: "@user/preferences", content: `# Preferences\n${longLine}\n` }),
      call("notes_write", { address: "@user/preferences", content: `# Preferences\n${manyLines}\n` }),
      say("done")
    ])
    await h.prompt("change my preferences")
    const [escaped, long, many] = h.dialogs.map((dialog) => dialog.title)
    expect(escaped).toContain("<toolDiffRemoved>- tabs, not spaces</toolDiffRemoved>")
    expect(escaped).toContain("<toolDiffAdded>+ spaces\\r\\u{1B}[2K\\u{1B}[1A- tabs, not spaces\\u{202E}evil</toolDiffAdded>")
    for (const title of [escaped, long, many]) expect(title).not.toMatch(/[\r\u001b\u202e]/u)
    expect(long!.length).toBeLessThan(3_000)
    expect(long).toContain(`… (${500_000 - 160} more characters)`)
    expect(many!.split("\n").length).toBeLessThan(60)
    expect(many).toContain("more lines not shown (0 removed, ")
    expect(readFileSync(userNote(h, "preferences"), "utf8")).toBe("# Preferences\ntabs, not spaces\n")
  })

  it("a change that leaves a protected note's text as it is asks nothing and writes nothing", async () => {
    const dirs = makeDirs()
    seedPreferences(dirs)
    h = await createHarness({ dirs, mode: "tui", choose: () => ConsentYes })
    h.script([
      call("notes_write", { address: "@user/preferences", content: "# Preferences\ntabs, not spaces\n" }),
      call("notes_update", { address: "@user/preferences", edits: [{ oldText: "tabs", newText: "tabs" }] }),
      say("done")
    ])
    await h.prompt("keep my preferences")
    expect(h.dialogs).toEqual([])
    for (const result of results(h)) {
      expect(result.isError).toBe(false)
      expect(result.text).toContain("@user/preferences.md already has this text: nothing was asked or written.")
    }
    // Not even the frontmatter a write stamps.
    expect(readFileSync(userNote(h, "preferences"), "utf8")).toBe("# Preferences\ntabs, not spaces\n")
    // Nor does tidy report such a call as a change.
    h.script([call("notes_write", { address: "@user/preferences", content: "# Preferences\ntabs, not spaces\n" }), say("Nothing to tidy.")])
    await h.prompt("/pi-context tidy")
    const report = h.entries().filter((e) => e.type === "custom" && e.customType === "pi-context/report").at(-1) as { data: { text: string } }
    expect(report.data.text).toContain("No changes.")
    expect(h.dialogs).toEqual([])
  })

  it("an allowed rewrite keeps the note's text first, hand edits included, and the notice's command brings it back", async () => {
    const dirs = makeDirs()
    seedPreferences(dirs)
    h = await createHarness({ dirs, mode: "tui", choose: () => ConsentYes })
    // A first window's commit holds the note as it was.
    h.script([checkpointAndWipe(), say("fresh")])
    await h.prompt("hello")
    await h.prompt("/pi-context notes versions")
    // The user adds a line by hand, in this window; the model then rewrites the note, and the user allows it.
    writeFileSync(userNote(h, "preferences"), "# Preferences\ntabs, not spaces\n- MY OWN RULE\n")
    h.script([call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces\n" }), say("done")])
    await h.prompt("change my preferences")
    expect(readFileSync(userNote(h, "preferences"), "utf8")).not.toContain("MY OWN RULE")
    const allowed = h.notices.map((notice) => notice.message).find((message) => message.includes("you allowed the rewrite of @user/preferences.md"))!
    const undo = /\/pi-context notes restore @user\/preferences\.md [0-9a-f]+/.exec(allowed)?.[0]
    expect(undo).toBeDefined()
    expect(results(h).at(-1)!.text).toContain(undo)
    await h.prompt(undo!)
    expect(h.notices.at(-1)!.message).toContain("Restored @user/preferences.md")
    expect(readFileSync(userNote(h, "preferences"), "utf8")).toContain("tabs, not spaces\n- MY OWN RULE\n")
  })
})
