import { assert, describe, it } from "@effect/vitest"
import type { RawEntry } from "../../src/domain/entries.ts"
import { CustomType } from "../../src/domain/protocol.ts"
import { keptExchangeBudget, KeptExchangeTokens, lastExchangeStart } from "../../src/domain/window/keptExchange.ts"

/** A window's entries in order, each the child of the one before. */
const windowOf = (...fields: ReadonlyArray<Record<string, unknown> & { readonly type: string }>): ReadonlyArray<RawEntry> =>
  fields.map((entry, i) => ({ ...entry, id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, timestamp: "" }))

/** Text of `tokens` tokens by Pi's chars/4 estimate. */
const text = (tokens: number) => "x".repeat(tokens * 4)
const user = (tokens: number) => ({ type: "message", message: { role: "user", content: text(tokens) } })
const reply = (tokens: number) => ({ type: "message", message: { role: "assistant", content: [{ type: "text", text: text(tokens) }] } })
const result = (tokens: number) => ({ type: "message", message: { role: "toolResult", content: [{ type: "text", text: text(tokens) }] } })
const marker = { type: "custom", customType: CustomType.resetMarker, data: { windowId: "pcx:s:1" } }
const boot = { type: "custom_message", customType: CustomType.boot, content: text(300), display: false, details: { windowId: "pcx:s:1" } }

describe("lastExchangeStart", () => {
  it("keeps the window's last exchange from the user's message, not the exchanges before it", () => {
    const window = windowOf(marker, boot, user(10), reply(10), user(20), reply(30), result(40), reply(5))
    assert.strictEqual(lastExchangeStart(window, 2_000), "e4")
  })

  it("keeps only the turns that fit when the exchange is larger than the budget", () => {
    const window = windowOf(user(10), reply(10), result(1_500), reply(100), result(200), reply(50))
    assert.strictEqual(lastExchangeStart(window, 1_000), "e3")
  })

  it("keeps nothing when not even the last reply fits", () => {
    assert.strictEqual(lastExchangeStart(windowOf(user(10), reply(3_000)), 2_000), null)
  })

  it("never starts at the boot or the marker of a window the model began without a user message", () => {
    const window = windowOf(marker, boot, reply(10), result(10), reply(10))
    assert.strictEqual(lastExchangeStart(window, 2_000), "e2")
  })

  it("the budget is a twentieth of a small window, capped for a large one", () => {
    assert.strictEqual(keptExchangeBudget(32_000), 1_600)
    assert.strictEqual(keptExchangeBudget(200_000), KeptExchangeTokens)
    assert.strictEqual(keptExchangeBudget(null), KeptExchangeTokens)
  })
})
