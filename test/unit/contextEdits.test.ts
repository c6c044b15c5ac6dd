import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SessionManager } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it } from "vitest"
import { appendHidingEdits } from "../../src/pi/contextEdits.ts"

const say = (role: "user" | "assistant", text: string) =>
  ({ role, content: [{ type: "text", text }], timestamp: 0, ...(role === "assistant" ? { api: "faux", provider: "faux", model: "m", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop" } : {}) }) as never

const texts = (manager: SessionManager) => manager.buildSessionProjection().messages.map((m) => JSON.stringify((m as { content?: unknown }).content))

describe("context edits appended many at a time", () => {
  const dirs: Array<string> = []
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })))
  const fileSession = () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-context-edits-"))
    dirs.push(dir)
    const manager = SessionManager.create("/tmp", dir)
    const ids = ["one", "two", "three", "four"].map((text, i) => manager.appendMessage(say(i % 2 === 0 ? "user" : "assistant", text)))
    return { manager, ids, file: manager.getSessionFile()! }
  }

  it("writes the edits Pi would, in one write: the file and Pi's memory agree, and a reopened session hides the same entries", () => {
    const { manager, ids, file } = fileSession()
    const lines = readFileSync(file, "utf8").trimEnd().split("\n").length
    expect(appendHidingEdits(manager, ids.slice(0, 3), new Date(0).toISOString())).toBe(true)
    const written = readFileSync(file, "utf8").trimEnd().split("\n").slice(lines).map((line) => JSON.parse(line))
    expect(written.map((edit) => [edit.type, edit.targetId, edit.replacement])).toEqual(ids.slice(0, 3).map((id) => ["context_edit", id, null]))
    // One chain from the old leaf, each edit an entry of Pi's memory with a fresh id.
    expect(written.map((edit) => edit.parentId)).toEqual([ids[3], written[0].id, written[1].id])
    expect(manager.getLeafId()).toBe(written[2].id)
    expect(new Set(written.map((edit) => edit.id)).size).toBe(3)
    expect(texts(manager)).toEqual([JSON.stringify([{ type: "text", text: "four" }])])
    expect(texts(SessionManager.open(file, join(file, "..")))).toEqual(texts(manager))
  })

  it("leaves Pi's memory as it was when the write fails, and answers false for a session manager of another shape", () => {
    const { manager, ids, file } = fileSession()
    rmSync(join(file, ".."), { recursive: true, force: true })
    const leaf = manager.getLeafId()
    const count = manager.getEntryCount()
    expect(() => appendHidingEdits(manager, ids, new Date(0).toISOString())).toThrow()
    expect([manager.getLeafId(), manager.getEntryCount()]).toEqual([leaf, count])
    expect(appendHidingEdits({ appendContextEdit: () => "x" }, ids, new Date(0).toISOString())).toBe(false)
  })
})
