import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { registerHooks } from "../../src/pi/hooks.ts"
import type { PiHost } from "../../src/pi/host.ts"
import { partialOf } from "../support/partial.ts"

/** A Pi stand-in that records handlers by event name. */
const recordingPi = () => {
  const handlers = new Map<string, (event: unknown, ctx: ExtensionContext) => unknown>()
  const on = (name: string, handler: (event: unknown, ctx: ExtensionContext) => unknown) => {
    handlers.set(name, handler)
    return () => void handlers.delete(name)
  }
  return { pi: partialOf<ExtensionAPI>({ on: on as ExtensionAPI["on"] }), handlers }
}

describe("Pi hooks when the runtime cannot load", () => {
  it("tell the user once and answer every event as if pi-context were absent", async () => {
    const { pi, handlers } = recordingPi()
    const notices: Array<string> = []
    const ctx = partialOf<ExtensionContext>({ ui: { notify: (message: string) => void notices.push(message) } })
    registerHooks(pi, () => Promise.reject(new Error("Cannot find module 'effect'")))

    await handlers.get("session_start")!({ type: "session_start", reason: "startup" }, ctx)
    expect(await handlers.get("input")!({ type: "input", text: "hi" }, ctx)).toEqual({ action: "continue" })
    expect(await handlers.get("context_with_system")!({ type: "context_with_system", messages: [] }, ctx)).toBeUndefined()
    // Boundary hooks are never registered without a runtime to answer them.
    expect(handlers.has("turn_end")).toBe(false)
    expect(handlers.has("agent_before_settle")).toBe(false)
    expect(await handlers.get("message_end")!({ type: "message_end", message: { role: "assistant" } }, ctx)).toBeUndefined()
    expect(await handlers.get("session_before_compact")!({ type: "session_before_compact", reason: "manual" }, ctx)).toBeUndefined()
    expect(notices).toEqual(["pi-context could not start, so it is inactive: Cannot find module 'effect'"])
  })
})

describe("Pi hooks at session start", () => {
  it("check that notes can be written once start-up is done, and no request waits for that check", async () => {
    const { pi, handlers } = recordingPi()
    const ctx = partialOf<ExtensionContext>({ ui: { notify: () => {} } })
    const calls: Array<string> = []
    const host = {
      sessionStart: async () => {
        calls.push("sessionStart")
        return { turnEnd: false, beforeSettle: false }
      },
      // A check that never answers (a hung network mount) must not hold up the first request.
      notesWritability: () => {
        calls.push("notesWritability")
        return new Promise<undefined>(() => {})
      },
      project: async () => {
        calls.push("project")
        return { messages: undefined, reminders: [], closeOut: Option.none(), windowId: "w", needs: { turnEnd: false, beforeSettle: false } }
      }
    }
    registerHooks(pi, async () => partialOf<PiHost>(host))

    await handlers.get("session_start")!({ type: "session_start", reason: "startup" }, ctx)
    expect(await handlers.get("context_with_system")!({ type: "context_with_system", messages: [] }, ctx)).toBeUndefined()
    await new Promise((resolve) => setImmediate(resolve))
    expect(calls[0]).toBe("sessionStart")
    expect([...calls].sort()).toEqual(["notesWritability", "project", "sessionStart"])
  })

  it("let a run that waited on start-up go first: the check follows when it settles, once", async () => {
    const { pi, handlers } = recordingPi()
    const ctx = partialOf<ExtensionContext>({ ui: { notify: () => {}, onTerminalInput: () => () => {} } })
    const calls: Array<string> = []
    const needs = { turnEnd: false, beforeSettle: false }
    let finishStart = (): void => {}
    const host = {
      sessionStart: () => new Promise<typeof needs>((resolve) => (finishStart = () => resolve(needs))),
      notesWritability: async () => void calls.push("notesWritability"),
      settled: async () => (calls.push("settled"), needs)
    }
    registerHooks(pi, async () => partialOf<PiHost>(host))

    await handlers.get("session_start")!({ type: "session_start", reason: "startup" }, ctx)
    const waiting = handlers.get("before_agent_start")!({ type: "before_agent_start" }, ctx)
    await new Promise((resolve) => setImmediate(resolve))
    finishStart()
    await waiting
    await new Promise((resolve) => setImmediate(resolve))
    expect(calls).toEqual([])
    await handlers.get("agent_settled")!({ type: "agent_settled", aborted: false }, ctx)
    await handlers.get("agent_settled")!({ type: "agent_settled", aborted: false }, ctx)
    await new Promise((resolve) => setImmediate(resolve))
    expect(calls).toEqual(["settled", "notesWritability", "settled"])
  })
})
