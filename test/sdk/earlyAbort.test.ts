import { fauxAssistantMessage } from "@earendil-works/pi-ai/compat"
import { VERSION } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it } from "vitest"
import { createPiContext } from "../../src/main.ts"
import { kinds } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"

const say = (text: string) => fauxAssistantMessage(text)
const piBefore15 = /^1\.[0-4]\./.test(VERSION)

/** A start-up that stays open until `release` is called: the runtime is still loading. */
const heldStartup = () => {
  let release = (): void => {}
  const gate = new Promise<void>((resolve) => (release = resolve))
  return { beforeLoad: () => gate, release }
}

/** Pi's input hooks run within the prompt's first microtasks; a macrotask later the hook is listening, if ever. */
const inputHookReached = (h: Harness) => Promise.race([h.terminal.listening(), new Promise<void>((resolve) => setImmediate(resolve))])

describe("an abort during start-up", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("Escape while the runtime still loads cancels the first prompt: no run, no model call, the text back in the editor", async () => {
    const startup = heldStartup()
    h = await createHarness({ mode: "tui", loadPackage: false, extraExtensions: [createPiContext({ beforeLoad: startup.beforeLoad })] })
    h.script([say("must not be asked")])
    const prompt = h.session.prompt("refactor the parser")
    await inputHookReached(h)
    expect(h.terminal.press("\x1b")).toBe(true)
    await prompt
    await h.waitForIdle()
    expect(h.requests).toHaveLength(0)
    expect(h.faux.getPendingResponseCount()).toBe(1)
    expect(kinds(h.entries())).not.toContain("message:user")
    expect(h.editorTexts).toEqual(["refactor the parser"])
    expect(h.notices.map((n) => n.message)).toContainEqual(expect.stringContaining("prompt cancelled"))

    // Start-up then finishes, and the next prompt runs as usual, after the root boot.
    startup.release()
    await h.prompt("refactor the parser")
    expect(h.requests).toHaveLength(1)
    const order = kinds(h.entries()).filter((kind) => kind.startsWith("message:user") || kind === "custom_message:pi-context/boot")
    expect(order).toEqual(["custom_message:pi-context/boot", "message:user"])
    // The key is no longer taken once start-up is over.
    expect(h.terminal.press("\x1b")).toBe(false)
    expect(h.errors).toEqual([])
  })

  it("other keys while it loads are left to the editor, and the prompt runs once start-up is done", async () => {
    const startup = heldStartup()
    h = await createHarness({ mode: "tui", loadPackage: false, extraExtensions: [createPiContext({ beforeLoad: startup.beforeLoad })] })
    h.script([say("answer")])
    const prompt = h.session.prompt("hello")
    await inputHookReached(h)
    expect(h.terminal.press("a")).toBe(false)
    startup.release()
    await prompt
    await h.waitForIdle()
    expect(h.requests).toHaveLength(1)
    expect(h.editorTexts).toEqual([])
  })

  it("Escape while a turn another extension started waits for start-up aborts that turn's first model call", async () => {
    const startup = heldStartup()
    h = await createHarness({ mode: "tui", loadPackage: false, extraExtensions: [createPiContext({ beforeLoad: startup.beforeLoad })] })
    h.script([say("must not be asked")])
    const run = h.session.sendCustomMessage({ customType: "other/kick", content: "go on", display: true }, { triggerTurn: true })
    await inputHookReached(h)
    // Pi handles this Escape itself too (its editor aborts the run), so it is not consumed.
    expect(h.terminal.press("\x1b")).toBe(false)
    startup.release()
    await run
    await h.waitForIdle()
    expect(h.requests).toHaveLength(0)
    const last = h.entries().filter((entry) => entry.type === "message").at(-1) as { message: { role: string; stopReason?: string; errorMessage?: string } }
    // Pi before 1.5 records this aborted call as an error, "This operation was aborted" (seen by npm run test:compat).
    expect(last.message).toMatchObject(
      piBefore15 ? { role: "assistant", stopReason: "error", errorMessage: "This operation was aborted" } : { role: "assistant", stopReason: "aborted" }
    )

    // The next turn is not touched.
    h.script([say("answer")])
    await h.prompt("hello")
    expect(h.requests).toHaveLength(1)
  })

  it("an SDK abort() 100 ms after the first prompt, while the runtime still loads, stops that prompt before any model call", async () => {
    const startup = heldStartup()
    h = await createHarness({ loadPackage: false, extraExtensions: [createPiContext({ beforeLoad: startup.beforeLoad })] })
    h.script([say("must not be asked")])
    const prompt = h.session.prompt("refactor the parser")
    await new Promise((resolve) => setTimeout(resolve, 100))
    const aborted = h.session.abort()
    startup.release()
    await prompt
    await aborted
    await h.waitForIdle()
    expect(h.requests).toHaveLength(0)
    expect(h.faux.getPendingResponseCount()).toBe(1)
    // As after any abort, the prompt stays in the session, with the aborted reply after it.
    const messages = h.entries().flatMap((entry) => (entry.type === "message" ? [entry.message as { role: string; stopReason?: string }] : []))
    const turn = messages.filter((message) => message.role === "user" || message.role === "assistant")
    expect(turn.map((message) => message.role)).toEqual(["user", "assistant"])
    expect(turn[1]!.stopReason).toMatch(piBefore15 ? /^(aborted|error)$/ : /^aborted$/)

    // The root boot came first, and the next prompt runs as usual.
    await h.prompt("refactor the parser")
    expect(h.requests).toHaveLength(1)
    expect(kinds(h.entries()).filter((kind) => kind.startsWith("message:user") || kind === "custom_message:pi-context/boot")[0]).toBe("custom_message:pi-context/boot")
    expect(h.errors).toEqual([])
  })

  it("an RPC prompt is not held either: an abort during start-up stops it", async () => {
    const startup = heldStartup()
    h = await createHarness({ mode: "rpc", loadPackage: false, extraExtensions: [createPiContext({ beforeLoad: startup.beforeLoad })] })
    h.script([say("must not be asked")])
    const prompt = h.session.prompt("refactor the parser", { source: "rpc" })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const aborted = h.session.abort()
    startup.release()
    await prompt
    await aborted
    await h.waitForIdle()
    expect(h.requests).toHaveLength(0)
  })
})
