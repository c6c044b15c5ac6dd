import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { RawEntry } from "../../src/kernel/entries.ts"
import * as PiSessionLive from "../../src/pi/PiSessionLive.ts"

/** Pi's SessionManager as the port reads it: getEntries() copies, getEntryCount() counts; both are counted here. */
const sessionManager = (withCount: boolean) => {
  const fileEntries: Array<RawEntry> = []
  const calls = { copies: 0 }
  let sessionId = "s-1"
  const manager = {
    getSessionId: () => sessionId,
    getEntries: () => (calls.copies++, fileEntries.filter((entry) => entry.type !== "session")),
    ...(withCount ? { getEntryCount: () => fileEntries.length } : {})
  }
  const append = (id: string) => void fileEntries.push({ type: "message", id, parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: id } })
  const replace = (id: string, ids: ReadonlyArray<string>) => {
    sessionId = id
    fileEntries.length = 0
    ids.forEach(append)
  }
  return { manager, calls, append, replace }
}

const portOver = (manager: object) =>
  PiSessionLive.make({} as ExtensionAPI, { sessionManager: manager, cwd: "/project" } as unknown as ExtensionContext, noSurface)

const noSurface: PiSessionLive.ReportSurface = { show: () => {}, chatShowsEntries: () => false }

const ids = (entries: ReadonlyArray<RawEntry>) => entries.map((entry) => entry.id)

describe("PiSession.entries over Pi's SessionManager", () => {
  it("copies the session once per event until Pi appends", () => {
    const pi = sessionManager(true)
    pi.append("a")
    const port = portOver(pi.manager)
    const first = Effect.runSync(port.entries)
    expect(Effect.runSync(port.entries)).toBe(first)
    expect(pi.calls.copies).toBe(1)
    pi.append("b")
    expect(ids(Effect.runSync(port.entries))).toEqual(["a", "b"])
    expect(pi.calls.copies).toBe(2)
  })

  it("copies again when the session behind the event was replaced by one of the same length", () => {
    const pi = sessionManager(true)
    pi.append("a")
    const port = portOver(pi.manager)
    Effect.runSync(port.entries)
    pi.replace("s-2", ["z"])
    expect(ids(Effect.runSync(port.entries))).toEqual(["z"])
  })

  it("copies on every read when Pi has no entry count", () => {
    const pi = sessionManager(false)
    pi.append("a")
    const port = portOver(pi.manager)
    Effect.runSync(port.entries)
    pi.append("b")
    expect(ids(Effect.runSync(port.entries))).toEqual(["a", "b"])
    expect(pi.calls.copies).toBe(2)
  })
})
