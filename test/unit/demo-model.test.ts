import { assert, describe, it } from "@effect/vitest"
import type { Context } from "@earendil-works/pi-ai"
import { reply } from "../../demo/tuiModel.ts"

/** The scripted model of `npm run demo -- --tui`, one request at a time. */
const request = (...messages: ReadonlyArray<{ readonly role: string; readonly content: string }>) => ({ messages } as unknown as Context)
const textOf = (message: ReturnType<typeof reply>) => message.content.map((part) => ("text" in part ? part.text : `→ ${"name" in part ? part.name : part.type}`)).join("")

describe("the TUI demo's model", () => {
  it("reads a reminder that rides after a tool's result or after the user's words, and answers the user, never the reminder", () => {
    const guidance = { role: "user", content: "[pi-context] Context budget: when this reminder was sent, about 2,603 tokens were left" }
    assert.strictEqual(textOf(reply(request({ role: "user", content: "big" }, { role: "assistant", content: "" }, { role: "toolResult", content: "106000" }, guidance))), "Done.")
    assert.strictEqual(textOf(reply(request({ role: "user", content: "hello there" }, guidance))), "You said: hello there")
  })

  it("checkpoints at the final warning, and in a fresh window says what it resumes from, Pi's system messages aside", () => {
    assert.strictEqual(textOf(reply(request({ role: "user", content: "[pi-context] Final context warning: write your checkpoint" }))), "→ notes_write→ notes_write→ wipe_memory")
    const boot = { role: "user", content: "## Context window\nLatest note: checkpoint.md" }
    const continuation = { role: "user", content: "Your context window was just reset. The message above is your boot" }
    assert.strictEqual(textOf(reply(request(boot, continuation, { role: "system", content: "" }))), "A fresh window: I resume from my notes (checkpoint.md).")
  })
})
