import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import type { JsonObject } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { conversation, ofCustomType, toolResults } from "../support/entries.ts"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"

const call = (name: string, args: JsonObject) =>
  fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })
const say = (text: string) => fauxAssistantMessage(text)


const sessionNotesDir = (h: Harness) => join(h.dirs.notesRoot, "sessions", h.session.sessionManager.getSessionId())

describe("notes tools in Pi's agent loop", () => {
  // One notes root for the whole file: Effect's default ConfigProvider snapshots process.env on
  // first use, so PI_CONTEXT_NOTES_ROOT is read once per process (each session still has its own home).
  const dirs = makeDirs()
  let h: Harness
  afterEach(async () => h?.dispose())
  afterAll(() => rmSync(dirs.root, { recursive: true, force: true }))

  it("the model writes a note, lists it and reads it back; the note is on disk in this session's home", async () => {
    h = await createHarness({ dirs })
    const body = "# Plan\n\nStep 1: measure.\nStep 2: cut the fat. 🦓"
    h.script([
      call("notes_write", { address: "work/plan", content: body }),
      call("notes_list", {}),
      call("notes_read", { address: "work/plan" }),
      say("done")
    ])
    await h.prompt("keep a plan")
    expect(h.errors).toEqual([])

    const [written, listed, read] = toolResults(h.entries())
    expect(written).toMatchObject({ toolName: "notes_write", isError: false })
    expect(written!.text).toMatch(/^Created work\/plan\b/)
    expect(listed).toMatchObject({ toolName: "notes_list", isError: false })
    expect(listed!.text).toContain("Notes, most recent first:")
    expect(listed!.text).toMatch(/- work\/plan(\.md)? · "Plan"/)
    expect(listed!.text).toContain("End of list.")
    expect(read).toMatchObject({ toolName: "notes_read", isError: false })
    expect(read!.text).toContain(`characters 0-${[...body].length} of ${[...body].length}`)
    expect(read!.text).toContain("End of note.")
    expect(read!.text.endsWith(body)).toBe(true)

    // The model saw the same results in its next requests.
    expect(conversation(h.requests[3]!).join("\n")).toContain("Step 2: cut the fat.")

    const file = join(sessionNotesDir(h), "work", "plan.md")
    expect(existsSync(file)).toBe(true)
    const onDisk = readFileSync(file, "utf8")
    expect(onDisk.startsWith("---\n")).toBe(true)
    expect(onDisk).toMatch(/^created: /m)
    expect(onDisk).toMatch(/^origin: session:/m)
    expect(onDisk.endsWith(body) || onDisk.endsWith(`${body}\n`)).toBe(true)

    // Writing again replaces, and says so.
    h.script([call("notes_write", { address: "work/plan", content: "# Plan\n\nv2" }), say("ok")])
    await h.prompt("rewrite it")
    expect(toolResults(h.entries()).at(-1)!.text).toMatch(/^Replaced work\/plan\b/)
    expect(readFileSync(file, "utf8")).toContain("v2")
  })

  it("an address that climbs out of its home is a tool error with code invalid_address, and nothing is written", async () => {
    h = await createHarness({ dirs })
    h.script([call("notes_write", { address: "../x", content: "escape" }), call("notes_read", { address: "../x" }), say("refused")])
    await h.prompt("try to escape")
    const [write, read] = toolResults(h.entries())
    for (const result of [write!, read!]) {
      expect(result.isError).toBe(true)
      expect(result.details).toEqual({ code: "invalid_address" })
      expect(result.text).toMatch(/^"\.\.\/x": /)
    }
    expect(existsSync(join(h.dirs.notesRoot, "sessions", "x.md"))).toBe(false)
    expect(existsSync(join(h.dirs.notesRoot, "x.md"))).toBe(false)
    expect(h.errors).toEqual([])
  })

  it("a MAP.md written in one window shows up in the boot of the next window after wipe_memory", async () => {
    h = await createHarness({ dirs })
    const map = "# Session map\n\n- work/plan: the plan, step 2 next (MARKER-GIRAFFE)"
    h.script([
      call("notes_write", { address: "MAP", content: map }),
      call("wipe_memory", {}),
      say("fresh window")
    ])
    await h.prompt("write the map, then wipe")
    expect(readFileSync(join(sessionNotesDir(h), "MAP.md"), "utf8")).toContain("MARKER-GIRAFFE")

    const boots = ofCustomType(h.entries(), "pi-context/boot") as Array<{ content: string }>
    // The root window's boot was built before the map existed; the reset's boot indexes it.
    expect(boots).toHaveLength(2)
    expect(boots[0]!.content).not.toContain("MARKER-GIRAFFE")
    expect(boots[1]!.content).toContain("MARKER-GIRAFFE")
    // The first request of the new window starts from that boot, so the model sees its map.
    const fresh = conversation(h.requests.at(-1)!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh[0]).toContain("MARKER-GIRAFFE")
    // Only the continuation quotes the user's message: it had no reply, and may have asked for just this reset.
    expect(fresh.filter((line) => line.includes("write the map, then wipe"))).toEqual([expect.stringContaining("or it only asked for this reset")])
  })

  it("a note the model writes to @model after Pi switches the model lands in the new model's home", async () => {
    h = await createHarness({ dirs })
    h.script([call("notes_write", { address: "@model/before", content: "first model\n" }), say("ok")])
    await h.prompt("note a pitfall")
    const current = h.session.model!
    await h.session.setModel({ ...current, id: "faux-2", name: "Faux 2" })
    h.script([call("notes_write", { address: "@model/after", content: "second model\n" }), say("ok")])
    await h.prompt("note another")
    expect(h.errors).toEqual([])
    expect(toolResults(h.entries()).map((result) => result.isError)).toEqual([false, false])
    expect(existsSync(join(dirs.notesRoot, "models", "faux-1", "before.md"))).toBe(true)
    expect(existsSync(join(dirs.notesRoot, "models", "faux-2", "after.md"))).toBe(true)
    expect(existsSync(join(dirs.notesRoot, "models", "faux-1", "after.md"))).toBe(false)
  })
})
