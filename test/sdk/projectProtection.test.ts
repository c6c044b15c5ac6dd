import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createHarness, type Harness, type HarnessDirs, makeDirs } from "../support/sdkHarness.ts"
import { call, say } from "../support/steps.ts"
import { ConsentNo } from "../../src/pi/consentDialog.ts"

/** Pi's settings files as a user and a repository write them: the global one, and the project's `.pi/settings.json`. */
const dirsWith = (global: Record<string, unknown> | undefined, project: Record<string, unknown>): HarnessDirs => {
  const dirs = makeDirs()
  mkdirSync(dirs.agentDir, { recursive: true })
  mkdirSync(join(dirs.cwd, ".pi"), { recursive: true })
  if (global !== undefined) writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify(global, null, 2))
  writeFileSync(join(dirs.cwd, ".pi", "settings.json"), JSON.stringify(project, null, 2))
  mkdirSync(join(dirs.notesRoot, "user"), { recursive: true })
  writeFileSync(join(dirs.notesRoot, "user", "preferences.md"), "# Preferences\ntabs, not spaces\n")
  return dirs
}

const results = (h: Harness) =>
  h.entries().flatMap((entry) =>
    entry.type === "message" && entry.message.role === "toolResult"
      ? [{ text: JSON.stringify(entry.message.content), isError: entry.message.isError, code: (entry.message.details as { code?: string } | undefined)?.code }]
      : []
  )

const preferences = (h: Harness) => readFileSync(join(h.dirs.notesRoot, "user", "preferences.md"), "utf8")

describe("a trusted project's settings only add protection, in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("protectedHomes: [] in a trusted project leaves @user protected: the rewrite is refused without a UI, asked in the TUI, and the notice says why", async () => {
    h = await createHarness({ dirs: dirsWith(undefined, { "pi-context": { protectedHomes: [], readOnlyHomes: ["@model"] } }), settingsFiles: { projectTrusted: true } })
    h.script([call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces\n" }), say("done")])
    await h.prompt("change my preferences")
    const [rewrite] = results(h)
    expect(rewrite!.isError).toBe(true)
    expect(rewrite!.code).toBe("protected")
    expect(preferences(h)).toBe("# Preferences\ntabs, not spaces\n")
    const told = h.notices.map((notice) => notice.message)
    expect(told).toContain(
      "pi-context: project settings: pi-context.protectedHomes = [] leaves out @user, which a project cannot take out: only the global settings lower protection, so a repository cannot open your notes to its model; using [\"user\"]."
    )
    await h.prompt("/pi-context status")
    const status = h.notices.at(-1)!.message
    expect(status).toContain("protected homes (the model adds notes, changes one only with your OK): @user (default)")
    // What a project adds applies, named after the file that added it.
    expect(status).toContain("read-only homes (the model may not write): @model (project: pi-context.readOnlyHomes)")
  })

  it("in Pi's TUI the same rewrite asks the user", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": { protectedHomes: ["user"] } }, { "pi-context": { protectedHomes: [] } }), settingsFiles: { projectTrusted: true }, mode: "tui", choose: () => ConsentNo })
    h.script([call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces\n" }), say("done")])
    await h.prompt("change my preferences")
    expect(h.dialogs).toHaveLength(1)
    expect(h.dialogs[0]!.answer).toBe(ConsentNo)
    expect(results(h)[0]!.code).toBe("protected")
    expect(preferences(h)).toBe("# Preferences\ntabs, not spaces\n")
  })

  it("the global settings still lower protection, and a project adds a home the global list left out: status names who set each", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": { protectedHomes: [] } }, { "pi-context": { protectedHomes: ["@agent"] } }), settingsFiles: { projectTrusted: true } })
    h.script([call("notes_write", { address: "@user/preferences", content: "# Preferences\nspaces\n" }), say("done")])
    await h.prompt("change my preferences")
    expect(results(h)[0]!.isError).toBe(false)
    expect(preferences(h)).toContain("# Preferences\nspaces\n")
    await h.prompt("/pi-context status")
    expect(h.notices.at(-1)!.message).toContain(
      "protected homes (the model adds notes, changes one only with your OK): @agent (none: global: pi-context.protectedHomes; @agent: project: pi-context.protectedHomes)"
    )
  })
})
