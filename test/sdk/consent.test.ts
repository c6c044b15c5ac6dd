import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { conversation } from "../support/entries.ts"
import { createHarness, type Harness, type HarnessDirs, makeDirs } from "../support/sdkHarness.ts"
import { call, checkpointAndWipe, say } from "../support/steps.ts"

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
    const answers = [false, true]
    h = await createHarness({ dirs, mode: "tui", confirm: () => answers.shift() ?? false })
    h.script([
      call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces, not tabs\n" }),
      call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces, not tabs\n" }),
      say("done")
    ])
    await h.prompt("change my preferences")
    expect(h.confirms).toHaveLength(2)
    expect(h.confirms[0]!.title).toBe("pi-context: allow the model to rewrite @user/preferences.md?")
    expect(h.confirms[0]!.message).toContain("- tabs, not spaces\n+ spaces, not tabs")
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
})
