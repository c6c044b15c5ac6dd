import type { ExtensionFactory } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it } from "vitest"
import { conversation } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { call, say } from "../support/steps.ts"

/** The user's slow, destructive request: the model runs a long bash command for it. */
const slowRequest = "slow: delete the build folder"

/** The first request of the window that follows the reset, as the model receives it. */
const freshWindow = (h: Harness) => conversation(h.requests.at(-1)!)

describe("a request the user cancelled is never resumed by a reset", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  /** Starts the slow request on Pi's real bash tool and resolves once the command runs (what the user sees). */
  const startSlowRequest = async () => {
    let started = (): void => {}
    const running = new Promise<void>((resolve) => (started = resolve))
    const watch: ExtensionFactory = (pi) => {
      pi.on("tool_execution_start", (event) => void (event.toolName === "bash" && started()))
    }
    h = await createHarness({ tools: ["bash"], mode: "tui", extraExtensions: [watch] })
    h.script([call("bash", { command: "sleep 30" })])
    const run = h.session.prompt(slowRequest)
    await running
    return { run }
  }

  const expectQuotedAsCancelled = (continuation: string) => {
    expect(continuation).not.toContain("take it up now")
    expect(continuation).toContain("cancelled their latest message")
    expect(continuation).toContain("Do not resume it")
    expect(continuation).toContain(`> ${slowRequest}`)
  }

  it("Escape while its command runs, then /wipe-memory: the new window quotes it as cancelled, never as pending", async () => {
    const { run } = await startSlowRequest()
    await h.session.abort()
    await run
    await h.waitForIdle()
    await h.prompt("/wipe-memory")
    h.script([say("4")])
    await h.prompt("what is 2+2?")
    const fresh = freshWindow(h)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh[1]).toMatch(/^user: Your context window was just reset/)
    expectQuotedAsCancelled(fresh[1]!)
    expect(fresh.at(-1)).toBe("user: what is 2+2?")
    // Nothing but the user's new question asked the model for a reply.
    expect(h.requests).toHaveLength(2)
  })

  it("/wipe-memory while its command runs, then Escape: the reset waits for idle and still does not resume it", async () => {
    const { run } = await startSlowRequest()
    await h.session.prompt("/wipe-memory")
    expect(h.notices.at(-1)?.message).toContain("will reset when idle")
    await h.session.abort()
    await run
    await h.waitForIdle()
    // The abort made no model call of its own and manufactured nothing: the user's wipe is the only boundary.
    expect(h.requests).toHaveLength(1)
    h.script([say("4")])
    await h.prompt("what is 2+2?")
    const fresh = freshWindow(h)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expectQuotedAsCancelled(fresh[1]!)
    expect(fresh.at(-1)).toBe("user: what is 2+2?")
    expect(h.requests).toHaveLength(2)
  })
})
