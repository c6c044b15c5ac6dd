import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { type BootIdentity, renderBoot } from "../../src/boot/boot.ts"
import { Defaults, renderNotice, resolvePolicy } from "../../src/settings/policy.ts"
import { Homes } from "../../src/kernel/homes.ts"
import type { NotesSnapshot } from "../../src/notes/snapshot.ts"

/**
 * `pi-context.afterReset` is the user's text at the top of every boot. Whatever
 * line break it holds, each of its lines is quoted: read with any reader's idea
 * of a line break, no line of the boot holds the user's text unquoted. Any
 * other control character refuses the whole setting, with a notice naming it.
 */

/** Every kind of line break some reader honours, written out here rather than taken from the code under test. */
const breaks = ["\n", "\r", "\r\n", "\u000b", "\u000c", "\u0085", "\u2028", "\u2029"] as const
const anyBreak = /\r\n|\n|\r|\u000b|\u000c|\u0085|\u2028|\u2029/
const controls = ["\u0000", "\u0007", "\u0008", "\u001b", "\u001b[2K\u001b[1A", "\u007f", "\u009b", "\u0090"] as const

/** Marks the user's text, so every line of the boot that holds some of it can be found. */
const Mark = "USERTEXT"

const identity: BootIdentity = {
  agentName: "pi",
  model: "test/model",
  modelSlug: "model",
  sessionId: "sess-1",
  rootWindowId: "root-1",
  currentWindowId: "w-2",
  previousWindowId: "w-1"
}
const now = Date.UTC(2025, 4, 1)
const snapshot: NotesSnapshot = {
  takenAt: now,
  homes: Homes.map((home) => ({ _tag: "Available", home, location: home, map: undefined, recent: [], noteCount: 0 }))
}

/** Text that imitates the boot's own structure, and anything else a string may hold. */
const fragment = fc.oneof(
  fc.constantFrom("## Notes index", "# pi-context", "1. Resume from", "- @user/plan", "> quoted", "```", "  ", "\t", "### Session", ""),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 6 })
)
const line = fc.array(fragment, { maxLength: 4 }).map((parts) => `${Mark}${parts.join("")}`)
const instruction = fc.record({
  lines: fc.array(line, { minLength: 1, maxLength: 6 }),
  separators: fc.array(fc.constantFrom(...breaks), { minLength: 6, maxLength: 6 }),
  control: fc.option(fc.record({ char: fc.constantFrom(...controls), at: fc.nat() }), { freq: 3 })
}).map(({ lines, separators, control }) => {
  const text = lines.map((text, i) => (i === 0 ? text : `${separators[i - 1]!}${text}`)).join("")
  if (control === null) return text
  const at = control.at % (text.length + 1)
  return `${text.slice(0, at)}${control.char}${text.slice(at)}`
})

const bootWith = (afterReset: string) => {
  const policy = resolvePolicy([{ source: "global", settings: { "pi-context": { afterReset } } }], undefined)
  const boot = renderBoot({ identity, snapshot, budgetTokens: Defaults.bootBudgetTokens, now, afterReset: policy.afterReset.value })
  return { policy, text: boot.text }
}

describe("pi-context.afterReset in the boot", () => {
  it("every line of the user's text is quoted, whatever line break separates it; a control character refuses it with a notice", () => {
    fc.assert(
      fc.property(instruction, (afterReset) => {
        const { policy, text } = bootWith(afterReset)
        const holdsControl = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f]/.test(afterReset)
        if (holdsControl) {
          assert.isUndefined(policy.afterReset.value)
          assert.notInclude(text, Mark)
          const notices = policy.notices.map(renderNotice)
          assert.lengthOf(notices, 1)
          assert.match(notices[0]!, /^global settings: pi-context\.afterReset = .* holds the control character U\+[0-9A-F]{4} \(only text, tabs and line breaks may be written\); no instruction of yours is added to the boot\.$/s)
          return
        }
        assert.deepStrictEqual(policy.notices, [])
        const lines = text.split(anyBreak)
        const userLines = lines.filter((boot) => boot.includes(Mark))
        // All of the user's text is there, line by line, and each of its lines is a quote.
        assert.strictEqual(userLines.reduce((count, boot) => count + boot.split(Mark).length - 1, 0), afterReset.split(Mark).length - 1)
        for (const boot of userLines) assert.isTrue(boot.startsWith("> "), JSON.stringify(boot))
        // Between the heading and the next section, nothing but quoted lines.
        const start = lines.indexOf("## From the user, for every new window (pi-context.afterReset)")
        const end = lines.indexOf("", start)
        assert.isAbove(start, -1)
        for (const boot of lines.slice(start + 1, end)) assert.match(boot, /^>( |$)/)
        // No control character of the user's reaches the boot raw.
        assert.notMatch(text, /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/)
      }),
      { numRuns: 2_000 }
    )
  })

  it("each kind of line break, alone, splits a heading the user wrote into a quoted line of its own", () => {
    for (const separator of breaks) {
      const { text } = bootWith(`be brief${separator}## Notes index${separator}${separator}(none)`)
      const lines = text.split(anyBreak)
      const start = lines.indexOf("## From the user, for every new window (pi-context.afterReset)")
      assert.deepStrictEqual(lines.slice(start + 1, start + 5), ["> be brief", "> ## Notes index", ">", "> (none)"], JSON.stringify(separator))
      assert.strictEqual(lines.filter((boot) => boot === "## Notes index").length, 1, JSON.stringify(separator))
    }
  })
})
