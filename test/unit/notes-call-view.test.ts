import { describe, expect, it } from "vitest"
import { notesRenderers } from "../../src/pi/notesRenderers.ts"
import { notesCallView, notesResultView } from "../../src/notes/callView.ts"

const plainTheme = { fg: (_color: string, text: string) => text, bg: (_color: string, text: string) => text } as never
const context = (expanded: boolean) => ({ expanded, isError: false }) as never
const content = "# Plan\n\n1. Explore the parser\n2. Rewrite the lexer\n"

describe("notes tool calls in Pi's TUI", () => {
  it("notes_write shows the address, the size and the first line, and the whole body on expand", () => {
    const view = notesCallView("notes_write", { address: "plan", content })
    expect(view.summary).toBe("notes_write plan · 51 B · # Plan")
    expect(view.body).toBe(content)
    const renderers = notesRenderers("notes_write")
    const collapsed = renderers.renderCall({ address: "plan", content }, plainTheme, context(false)).render(120).map((l) => l.trimEnd())
    expect(collapsed).toEqual(["notes_write plan · 51 B · # Plan"])
    const expanded = renderers.renderCall({ address: "plan", content }, plainTheme, context(true)).render(120).map((l) => l.trimEnd())
    expect(expanded).toContain("2. Rewrite the lexer")
  })

  it("notes_update names its edits, rename and retire; reads and searches name what they look for", () => {
    expect(notesCallView("notes_update", { address: "@project/db", edits: [{ oldText: "a", newText: "b" }], rename_to: "@project/store" }).summary)
      .toBe("notes_update @project/db · 1 edit, rename to @project/store")
    expect(notesCallView("notes_update", { address: "old", retire: true }).summary).toBe("notes_update old · retire")
    expect(notesCallView("notes_read", { address: "plan", offset: 7500 }).summary).toBe("notes_read plan from 7500")
    expect(notesCallView("notes_search", { query: "lexer", home: "@project" }).summary).toBe('notes_search "lexer" in @project')
    expect(notesCallView("notes_list", {}).summary).toBe("notes_list")
  })

  it("never throws on arguments the model got wrong", () => {
    expect(notesCallView("notes_write", null).summary).toBe("notes_write (no address) · 0 B")
    expect(notesCallView("notes_update", { address: 3, edits: "x" }).summary).toBe("notes_update (no address)")
  })

  it("a result shows its first line, and all of it on expand", () => {
    const text = "Created plan.md (48 B).\nThe session MAP does not list it yet."
    expect(notesResultView(text, false)).toBe("Created plan.md (48 B).")
    expect(notesResultView(text, true)).toBe(text)
  })
})
