import { existsSync, rmSync } from "node:fs"
import { join } from "node:path"
import type { JsonObject } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ofCustomType } from "../support/entries.ts"
import { bareRemote, git, isolateGit } from "../support/notesSyncFixtures.ts"
import { tempDir } from "../support/tempDirs.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"

const call = (name: string, args: JsonObject) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })
const say = (text: string) => fauxAssistantMessage(text)

const remoteFiles = (remote: string): string => {
  try {
    return git(remote, "ls-tree", "-r", "--name-only", "notes").trim()
  } catch {
    return ""
  }
}

const waitFor = async (what: string, ready: () => boolean, timeoutMs = 15_000): Promise<void> => {
  const began = Date.now()
  while (!ready()) {
    if (Date.now() - began > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe("notes sync in Pi's agent loop", () => {
  let restoreGit: () => void = () => {}
  const shared = tempDir("pi-sync-sdk-")
  beforeAll(() => {
    restoreGit = isolateGit()
  })
  afterAll(() => {
    restoreGit()
    rmSync(shared, { recursive: true, force: true })
  })

  it("a user note written in session A's window reaches session B's boot, on another notes root, after B's pull", async () => {
    const remote = bareRemote(shared)
    const settings = { "pi-context": { sync: [{ homes: ["user"], remote, branch: "notes" }] } }

    const a: Harness = await createHarness({ settings })
    a.script([call("notes_write", { address: "@user/editor", content: "# Prefers tabs, MARKER-OKAPI\n" }), call("wipe_memory", {}), say("fresh window")])
    await a.prompt("remember how I like my editor, then wipe")
    expect(a.errors).toEqual([])
    // Shutdown pushes what the window's commit has not pushed yet, bounded.
    // The window's notes commit lands off the hook's path, and the push after it.
    await waitFor("A's push", () => remoteFiles(remote) === "user/editor.md")
    await a.dispose()

    const b: Harness = await createHarness({ settings })
    try {
      expect(b.dirs.notesRoot).not.toBe(a.dirs.notesRoot)
      b.script([say("first reply"), call("notes_write", { address: "status", content: "said hello\n" }), call("wipe_memory", {}), say("fresh window")])
      await b.prompt("hello")
      // The pull runs in the background from session start; the root window's boot was built from what was here.
      await waitFor("B's pull", () => existsSync(join(b.dirs.notesRoot, "user", "editor.md")))
      await b.prompt("wipe now")
      const boots = ofCustomType(b.entries(), "pi-context/boot") as Array<{ content: string }>
      expect(boots).toHaveLength(2)
      expect(boots[0]!.content).not.toContain("@user/editor")
      expect(boots[1]!.content).toContain("@user/editor")
      expect(b.errors).toEqual([])
      expect(b.notices.filter((notice) => notice.message.includes("notes sync"))).toEqual([])
      // The view reads the engine's states: B's pull brought the one note.
      await b.prompt("/pi-context notes sync")
      expect(b.notices.at(-1)!.message).toContain(remote)
      expect(b.notices.at(-1)!.message).toContain("(1 note pulled)")
    } finally {
      await b.dispose()
    }
  })
})
