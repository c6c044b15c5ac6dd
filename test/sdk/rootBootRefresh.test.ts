import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, afterEach, describe, expect, it, vi } from "vitest"
import { conversation, ofCustomType } from "../support/entries.ts"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"
import { say } from "../support/steps.ts"
import { formatTokens } from "../../src/kernel/tokenCount.ts"

describe("notes that arrive before the first prompt, in Pi's agent loop", () => {
  // One notes root per file: PI_CONTEXT_NOTES_ROOT is read once per process.
  const dirs = makeDirs()
  let h: Harness
  afterEach(async () => h?.dispose())
  afterAll(() => rmSync(dirs.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }))

  /** What the start-up pull of a synced @user home does: a note lands after the root boot was written. */
  const pullUserNote = (name: string, text: string) => {
    mkdirSync(join(dirs.notesRoot, "user"), { recursive: true })
    writeFileSync(join(dirs.notesRoot, "user", `${name}.md`), text)
  }

  it("are in the first request's boot; once the model answered, the root boot it saw stays", async () => {
    h = await createHarness({ dirs })
    // Start-up writes the root boot in the background of session_start.
    await vi.waitFor(() => expect(ofCustomType(h.entries(), "pi-context/boot")).toHaveLength(1), { timeout: 15_000 })
    const bootsAtStart = 1
    pullUserNote("preferences", "# Preferences\nanswer in French")
    h.script([say("d'accord"), say("oui")])
    await h.prompt("hello")
    const first = conversation(h.requests[0]!)
    expect(first.filter((line) => line.includes("## Context window"))).toHaveLength(1)
    expect(first[0]).toContain("@user/preferences.md")
    expect(first[0]).not.toMatch(/### The user[^\n]*\nNo notes yet/)

    // The model has answered: a note arriving now waits for the next window's boot.
    pullUserNote("later", "# Later\nnot yet")
    await h.prompt("and now?")
    const second = conversation(h.requests[1]!)
    expect(second[0]).toBe(first[0])
    expect(second.join("\n")).not.toContain("@user/later.md")
    expect(ofCustomType(h.entries(), "pi-context/boot")).toHaveLength(bootsAtStart + 1)
    // /pi-context status counts the boot the requests carry: the refreshed one, not the first.
    await h.prompt("/pi-context status")
    const sent = first.find((line) => line.startsWith("user: ## Context window"))!.slice("user: ".length)
    expect(h.notices.at(-1)!.message).toMatch(new RegExp(`, the boot ${formatTokens(Math.ceil(sent.length / 4))}\\b`))
    expect(h.errors).toEqual([])
  })

  it("a prompt with no new notes writes no second boot", async () => {
    h = await createHarness({ dirs: makeDirs() })
    h.script([say("hi")])
    await h.prompt("hello")
    expect(ofCustomType(h.entries(), "pi-context/boot")).toHaveLength(1)
  })
})
