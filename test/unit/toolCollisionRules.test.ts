import { describe, expect, it } from "vitest"
import { collisionNotice, collisions, describeSource } from "../../src/pi/toolCollisions.ts"

describe("tool-name collisions", () => {
  const mine = { name: "notes_write", parameters: {} }
  const alsoMine = { name: "history_windows", parameters: {} }

  it("a name is another extension's when Pi lists a tool with a schema pi-context did not register", () => {
    const listed = [
      { name: "notes_write", parameters: {}, sourceInfo: { path: "/home/u/.pi/agent/extensions/pi-memory/index.ts", source: "local" } },
      { name: "history_windows", parameters: alsoMine.parameters, sourceInfo: { path: "/x/pi-context/src/main.ts", source: "local" } }
    ]
    expect(collisions([mine, alsoMine], listed)).toEqual([{ owner: "pi-memory (local)", names: ["notes_write"] }])
    // A tool Pi does not list at all (an allowlist left it out) is no collision.
    expect(collisions([mine], [])).toEqual([])
  })

  it("names an owner by its package or file, never by a full path of the machine", () => {
    expect(describeSource({ path: "/usr/lib/node_modules/pi-memory/src/index.ts", source: "npm:pi-memory@1.2.0" })).toBe("npm:pi-memory@1.2.0")
    expect(describeSource({ path: "/home/u/project/.pi/extensions/memory.ts", source: "local" })).toBe("memory.ts (local)")
    expect(describeSource({ path: "<inline:2>", source: "inline" })).toBe("<inline:2> (inline)")
    expect(describeSource(undefined)).toBe("an unknown extension")
  })

  it("one notice names each owner with its names and says what to do", () => {
    const notice = collisionNotice([{ owner: "npm:pi-memory", names: ["notes_write", "notes_read"] }, { owner: "memo.ts (local)", names: ["history_windows"] }])
    expect(notice).toContain("notes_write, notes_read belong to npm:pi-memory; history_windows belongs to memo.ts (local)")
    expect(notice).toContain("Remove one of the two extensions, or turn pi-context off with /pi-context off.")
    expect(notice).not.toContain("/home")
  })
})
