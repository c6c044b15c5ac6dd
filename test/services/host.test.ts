import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it } from "vitest"
import { makeHost } from "../../src/runtime.ts"

describe("the host runtime", () => {
  let dispose: (() => Promise<void>) | undefined
  afterEach(async () => dispose?.())

  it("answers a failing hook with its neutral result and tells the user once", async () => {
    process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-context-host-"))
    const notices: Array<string> = []
    const pi = { getSettings: () => ({}) } as unknown as ExtensionAPI
    const broken = () => {
      throw new Error("session store unreadable")
    }
    const ctx = {
      cwd: tmpdir(),
      ui: { notify: (message: string) => void notices.push(message), setStatus: () => {} },
      sessionManager: {
        getSessionId: () => "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000",
        getHeader: () => undefined,
        getLeafEntry: broken,
        getBranch: broken,
        getEntries: broken
      },
      model: undefined,
      getContextUsage: () => undefined,
      isProjectTrusted: () => false
    } as unknown as ExtensionContext
    const host = makeHost(pi)
    dispose = host.dispose
    const messages = [{ role: "user", content: "hi", timestamp: 0 }] as never
    // Pi's own request is sent, and both boundary hooks stay live rather than miss a boundary.
    const neutral = { messages: undefined, needs: { turnEnd: true, beforeSettle: true } }
    expect(await host.project(messages, ctx)).toEqual(neutral)
    expect(await host.project(messages, ctx)).toEqual(neutral)
    expect(notices).toEqual(["pi-context: context_with_system failed; Pi continues without it. See /pi-context trace."])
  })

  it("a reply whose shape Pi's overflow test cannot read (no usage) counts as no overflow, and the hook still answers", async () => {
    process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-context-host-"))
    const notices: Array<string> = []
    const entries: Array<Record<string, unknown>> = []
    const pi = { getSettings: () => ({}), appendEntry: () => {}, sendMessage: () => {} } as unknown as ExtensionAPI
    const ctx = {
      cwd: tmpdir(),
      ui: { notify: (message: string) => void notices.push(message), setStatus: () => {} },
      sessionManager: {
        getSessionId: () => "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000",
        getHeader: () => undefined,
        getLeafEntry: () => entries.at(-1),
        getEntry: () => undefined,
        getBranch: () => entries,
        getEntries: () => entries
      },
      model: { provider: "other", id: "m", contextWindow: 1000, maxTokens: 100 },
      getContextUsage: () => undefined,
      isProjectTrusted: () => false
    } as unknown as ExtensionContext
    const host = makeHost(pi)
    dispose = host.dispose
    // "stop" with a context window makes Pi's test read usage.input, which this reply lacks.
    const reply = { role: "assistant", content: [], stopReason: "stop", timestamp: 0 } as never
    // No overflow recovery is armed for it.
    expect(await host.boundaryNeeds(ctx, reply)).toMatchObject({ beforeSettle: false })
    expect(notices.filter((n) => n.includes("failed"))).toEqual([])
  })
})
