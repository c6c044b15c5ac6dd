import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { describe, expect, it } from "vitest"
import { missingApiMethods, missingEvents } from "../../src/pi/hostApi.ts"
import { createPiContext } from "../../src/main.ts"
import { partialOf } from "../support/partial.ts"

/** A Pi stand-in with every method pi-context calls at load, recording what was registered. */
const fakePi = (without: ReadonlyArray<string> = [], onReturns: "unsubscribe" | "nothing" = "unsubscribe") => {
  const registered: Array<string> = []
  const handlers: Array<readonly [string, (event: unknown, ctx: ExtensionContext) => unknown]> = []
  const api: Record<string, unknown> = {
    on: (name: string, handler: (event: unknown, ctx: ExtensionContext) => unknown) => {
      handlers.push([name, handler])
      return onReturns === "unsubscribe" ? () => {} : undefined
    },
    registerTool: (tool: { name: string }) => void registered.push(`tool ${tool.name}`),
    registerCommand: (name: string) => void registered.push(`command ${name}`),
    registerEntryRenderer: (type: string) => void registered.push(`renderer ${type}`),
    appendEntry: () => {},
    sendMessage: () => {},
    getSettings: () => ({}),
    getAllTools: () => []
  }
  for (const name of without) delete api[name]
  return { pi: api as unknown as ExtensionAPI, registered, handlers }
}

const startSession = async (handlers: ReturnType<typeof fakePi>["handlers"], ctx: ExtensionContext) => {
  for (const [name, handler] of handlers) if (name === "session_start") await handler({ type: "session_start", reason: "startup" }, ctx)
}

describe("a Pi whose API lacks what pi-context needs", () => {
  it("names the missing methods", () => {
    expect(missingApiMethods(fakePi().pi)).toEqual([])
    expect(missingApiMethods(fakePi(["getSettings", "registerEntryRenderer"]).pi)).toEqual(["pi.registerEntryRenderer()", "pi.getSettings()"])
    expect(missingApiMethods(undefined)).toHaveLength(7)
  })

  it("names the events an older Pi would accept but never send", () => {
    expect(missingEvents("0.86.1")).toMatch(/context_with_system, turn_end boundary and agent_settled events \(Pi 1\.1\.0 or newer\)/)
    expect(missingEvents("1.0.4")).toBeDefined()
    for (const version of ["1.1.0", "1.3.0", "1.6.0", "2.0.0", "1.10.0-beta.1", undefined, "dev"]) expect(missingEvents(version)).toBeUndefined()
  })

  it("registers nothing but one notice at start-up, which names what is missing, once", async () => {
    const { pi, registered, handlers } = fakePi(["getSettings"])
    createPiContext()(pi)
    expect(registered).toEqual([])
    expect(handlers.map(([name]) => name)).toEqual(["session_start"])
    const notices: Array<{ message: string; level: string }> = []
    const ctx = partialOf<ExtensionContext>({ ui: { notify: (message: string, level?: string) => void notices.push({ message, level: level ?? "info" }) } })
    await startSession(handlers, ctx)
    await startSession(handlers, ctx)
    expect(notices).toHaveLength(1)
    expect(notices[0]!.level).toBe("error")
    expect(notices[0]!.message).toMatch(/^pi-context is inactive: this Pi \([\d.]+\) lacks pi\.getSettings\(\), which pi-context needs/)
  })

  it("refuses a Pi whose pi.on() returns no unsubscribe function (boundary hooks could never be dropped)", async () => {
    const { pi, registered, handlers } = fakePi([], "nothing")
    createPiContext()(pi)
    expect(registered).toEqual([])
    const notices: Array<string> = []
    await startSession(handlers, partialOf<ExtensionContext>({ ui: { notify: (message: string) => void notices.push(message) } }))
    expect(notices).toEqual([expect.stringContaining("lacks the unsubscribe function that pi.on() returns")])
  })

  it("without pi.on() the only way to say so is Pi's own load error", () => {
    expect(() => createPiContext()(fakePi(["on"]).pi)).toThrow(/pi-context is inactive: .* lacks pi\.on\(\)/)
  })

  it("a complete API loads as usual", () => {
    const { pi, registered } = fakePi()
    createPiContext()(pi)
    expect(registered).toContain("tool notes_write")
    expect(registered).toContain("command pi-context")
  })
})
