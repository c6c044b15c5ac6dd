import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it } from "vitest"
import { makeHost } from "../../src/runtime.ts"
import { partialOf } from "../support/partial.ts"

describe("the host runtime", () => {
  let dispose: (() => Promise<void>) | undefined
  afterEach(async () => dispose?.())

  it("answers a failing hook with its neutral result and tells the user once", async () => {
    process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-context-host-"))
    const notices: Array<string> = []
    const pi = partialOf<ExtensionAPI>({ getSettings: () => ({}) })
    const broken = () => {
      throw new Error("session store unreadable")
    }
    const ctx = partialOf<ExtensionContext>({
      cwd: tmpdir(),
      ui: { notify: (message: string) => void notices.push(message), setStatus: () => {} },
      sessionManager: {
        getSessionId: () => "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000",
        getHeader: () => null,
        getLeafEntry: broken,
        getBranch: broken,
        getEntries: broken
      },
      model: undefined,
      getContextUsage: () => undefined,
      isProjectTrusted: () => false
    })
    const host = makeHost(pi)
    dispose = host.dispose
    const messages = [{ role: "user", content: "hi", timestamp: 0 }] as never
    // Pi's own request is sent, and both boundary hooks stay live rather than miss a boundary.
    const neutral = { messages: undefined, needs: { turnEnd: true, beforeSettle: true } }
    expect(await host.project(messages, ctx)).toEqual(neutral)
    expect(await host.project(messages, ctx)).toEqual(neutral)
    expect(notices).toEqual(["pi-context: context_with_system failed; Pi continues without it. See /pi-context trace."])
  })
})
