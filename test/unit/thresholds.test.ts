import { assert, describe, it } from "@effect/vitest"
import { Defaults, injectedSource, renderNotice, resolvePolicy, type SettingsSource } from "../../src/settings/policy.ts"

const model = { provider: "anthropic", id: "claude-sonnet-4", contextWindow: 200_000 }
const global = (settings: unknown): SettingsSource => ({ source: "global", settings })
const project = (settings: unknown): SettingsSource => ({ source: "project", settings })
const lineValues = (sources: ReadonlyArray<SettingsSource>, m = model) => {
  const { lines } = resolvePolicy(sources, m)
  return [lines.guidance.value, lines.warning.value, lines.hard.value]
}

describe("resolvePolicy", () => {
  it("derives the default lines from Pi's default reserve", () => {
    const policy = resolvePolicy([], model)
    assert.deepStrictEqual(lineValues([]), [16384 + 24576, 16384 + 12288, 16384])
    assert.strictEqual(policy.lines.hard.source, "default")
    assert.strictEqual(policy.automaticReset.value, true)
    assert.strictEqual(policy.enabled.value, true)
    assert.strictEqual(policy.traceLevel.value, "info")
    assert.strictEqual(policy.bootBudgetTokens.value, Defaults.bootBudgetTokens)
    assert.deepStrictEqual(policy.notices, [])
  })

  it("follows Pi's reserve, including Pi's per-model override, and moves the default lines with it", () => {
    const settings = { compaction: { reserveTokens: 20000, modelOverrides: { "anthropic/claude-sonnet-4": { reserveTokens: 30000 } } } }
    const policy = resolvePolicy([global(settings)], model)
    assert.deepStrictEqual(lineValues([global(settings)]), [30000 + 24576, 30000 + 12288, 30000])
    assert.strictEqual(policy.reserve.source, "model")
    assert.deepStrictEqual(lineValues([global(settings)], { ...model, id: "other" }), [20000 + 24576, 20000 + 12288, 20000])
  })

  it("merges per key: project wins for the keys it sets, global keeps the rest", () => {
    const policy = resolvePolicy([
      global({ "pi-context": { guidanceLine: 60000, warningLine: 40000, automaticReset: false } }),
      project({ "pi-context": { warningLine: 35000 } })
    ], model)
    assert.deepStrictEqual([policy.lines.guidance.value, policy.lines.guidance.source], [60000, "global"])
    assert.deepStrictEqual([policy.lines.warning.value, policy.lines.warning.source], [35000, "project"])
    assert.deepStrictEqual([policy.automaticReset.value, policy.automaticReset.source], [false, "global"])
  })

  it("does not take automaticReset from Pi's compaction.enabled", () => {
    const policy = resolvePolicy([global({ compaction: { enabled: false } })], model)
    assert.strictEqual(policy.automaticReset.value, true)
  })

  it("falls back to the lower source when the winning value is invalid, with one notice", () => {
    const policy = resolvePolicy([
      global({ "pi-context": { warningLine: 40000 } }),
      project({ "pi-context": { warningLine: "lots" } })
    ], model)
    assert.strictEqual(policy.lines.warning.value, 40000)
    assert.deepStrictEqual(policy.notices.map((n) => [n.key, n.value, n.used, n.source]), [["pi-context.warningLine", "lots", 40000, "project"]])
    assert.strictEqual(renderNotice(policy.notices[0]!), "project settings: pi-context.warningLine = \"lots\" is a text, not a number of tokens; using 40,000.")
  })

  it("a bad line on a small window names the value in use, which scales with the window, not the large-window default", () => {
    const small = { provider: "faux", id: "faux-1", contextWindow: 32_000 }
    const policy = resolvePolicy([global({ "pi-context": { warningLine: "lots" } })], small)
    assert.strictEqual(policy.lines.warning.value, 22_630)
    assert.deepStrictEqual(policy.notices.map(renderNotice), ["global settings: pi-context.warningLine = \"lots\" is a text, not a number of tokens; using 22,630."])
  })

  it("a model override's notice names the settings file it came from", () => {
    const small = { provider: "faux", id: "faux-1", contextWindow: 32_000 }
    const policy = resolvePolicy([project({ "pi-context": { models: { "faux-*": { warningLine: "lots", guidanceLine: 40_000 } } } })], small)
    assert.deepStrictEqual(policy.notices.map(renderNotice), [
      "project settings: pi-context.models[\"faux-*\"].warningLine = \"lots\" is a text, not a number of tokens; using 22,630.",
      "project settings: pi-context.models[\"faux-*\"].guidanceLine = 40000 is at or beyond this model's 32,000-token window; using 25,753."
    ])
    // Its rank is still a model override's: it beats a top-level key.
    assert.strictEqual(policy.lines.guidance.source, "model")
  })

  it("says a moved line's figures as the views show token counts", () => {
    const small = { provider: "faux", id: "faux-1", contextWindow: 32_000 }
    const below = resolvePolicy([global({ "pi-context": { warningLine: 9000 } })], small)
    assert.deepStrictEqual(below.notices.map(renderNotice), [
      "global settings: pi-context.warningLine = 9000 must be above the next lower line (16,384 tokens left); using 22,630."
    ])
    const beyond = resolvePolicy([global({ "pi-context": { guidanceLine: 40000 } })], small)
    assert.deepStrictEqual(beyond.notices.map(renderNotice), [
      "global settings: pi-context.guidanceLine = 40000 is at or beyond this model's 32,000-token window; using 25,753."
    ])
  })

  it("rejects negatives and rounds fractions down, one notice each", () => {
    const policy = resolvePolicy([global({ "pi-context": { guidanceLine: -5, warningLine: 30000.7 } })], model)
    assert.deepStrictEqual(lineValues([global({ "pi-context": { guidanceLine: -5, warningLine: 30000.7 } })]), [40960, 30000, 16384])
    assert.deepStrictEqual(policy.notices.map((n) => [n.key, n.reason]), [
      ["pi-context.warningLine", "is not a whole number of tokens"],
      ["pi-context.guidanceLine", "is negative"]
    ])
  })

  it("validates Pi's own reserve instead of passing a bad one through", () => {
    const policy = resolvePolicy([global({ compaction: { reserveTokens: -1 } })], model)
    assert.strictEqual(policy.lines.hard.value, 16384)
    assert.deepStrictEqual(policy.notices.map((n) => [n.key, n.used]), [["compaction.reserveTokens", 16384]])
  })

  it("puts out-of-order lines back in order above the line below", () => {
    const policy = resolvePolicy([global({ "pi-context": { guidanceLine: 20000, warningLine: 10000 } })], model)
    // warning below hard -> its default runway above hard; guidance below warning -> its default runway
    assert.deepStrictEqual([policy.lines.guidance.value, policy.lines.warning.value, policy.lines.hard.value], [40960, 28672, 16384])
    assert.deepStrictEqual(policy.notices.map((n) => [n.key, n.value, n.used]), [
      ["pi-context.warningLine", 10000, 28672],
      ["pi-context.guidanceLine", 20000, 40960]
    ])
  })

  it("fits every line inside a small model's window", () => {
    const small = { provider: "local", id: "tiny", contextWindow: 8192 }
    const policy = resolvePolicy([], small)
    const { guidance, warning, hard } = policy.lines
    // The hard line moves to a quarter of the window; the defaults take 60% and 40% of the room above it.
    assert.deepStrictEqual([guidance.value, warning.value, hard.value], [2048 + 3686, 2048 + 2457, 2048])
    assert.isTrue(hard.value < warning.value && warning.value < guidance.value && guidance.value < small.contextWindow)
    // Only the reserve is a problem worth telling; the default lines and boot budget follow it quietly.
    assert.deepStrictEqual(policy.notices.map((n) => [n.key, n.value, n.used]), [["compaction.reserveTokens", 16384, 2048]])
    assert.strictEqual(policy.bootBudgetTokens.value, 1024)
  })

  it("scales the default runways to a small window, so its first prompt is far from the lines", () => {
    const window = (contextWindow: number) => resolvePolicy([], { ...model, contextWindow })
    const w32k = window(32_000)
    // 15,616 tokens above Pi's reserve: the guidance 60% of it above the hard line, the warning 40%.
    assert.deepStrictEqual(lineValues([], { ...model, contextWindow: 32_000 }), [16384 + 9369, 16384 + 6246, 16384])
    assert.deepStrictEqual(w32k.derivations.guidance, { _tag: "Runway", runway: 9369, scaled: { share: 0.6, room: 15_616 } })
    assert.deepStrictEqual(w32k.derivations.hard, { _tag: "Reserve" })
    assert.deepStrictEqual(w32k.notices, [])
    // A first prompt at 14% of the window (4,480 tokens) leaves 27,520: above the guidance line.
    assert.isTrue(32_000 - 4_480 > w32k.lines.guidance.value)
    // From about 57,000 tokens on, the fixed runways hold: 200k and 1M windows keep 24,576 and 12,288.
    for (const contextWindow of [128_000, 200_000, 1_000_000]) {
      assert.deepStrictEqual(lineValues([], { ...model, contextWindow }), [16384 + 24576, 16384 + 12288, 16384])
      assert.deepStrictEqual(window(contextWindow).derivations.guidance, { _tag: "Runway", runway: 24576 })
    }
    // An explicit hard line moves the scaled defaults with it; explicit lines stay as set.
    assert.deepStrictEqual(lineValues([global({ "pi-context": { hardLine: 8000 } })], { ...model, contextWindow: 32_000 }), [8000 + 14400, 8000 + 9600, 8000])
    const set = resolvePolicy([global({ "pi-context": { guidanceLine: 25_000, warningLine: 20_000 } })], { ...model, contextWindow: 32_000 })
    assert.deepStrictEqual([set.lines.guidance.value, set.lines.warning.value], [25_000, 20_000])
    assert.deepStrictEqual([set.derivations.guidance, set.derivations.warning], [{ _tag: "Set" }, { _tag: "Set" }])
  })

  it("clamps huge values at or beyond the window", () => {
    const policy = resolvePolicy([global({ "pi-context": { guidanceLine: 1e15, hardLine: 200_000 } })], model)
    const { guidance, warning, hard } = policy.lines
    assert.deepStrictEqual([hard.value, warning.value, guidance.value], [50000, 62288, 74576])
    assert.deepStrictEqual(policy.notices.map((n) => n.key), ["pi-context.hardLine", "pi-context.guidanceLine"])
  })

  it("applies per-model overrides by glob, the most specific pattern winning per key", () => {
    const sources = [global({
      "pi-context": {
        guidanceLine: 50000,
        models: {
          "*": { warningLine: 30000 },
          "claude-*": { warningLine: 45000, automaticReset: false },
          "gpt-*": { warningLine: 20000 }
        }
      }
    })]
    const policy = resolvePolicy(sources, model)
    assert.deepStrictEqual(policy.modelPatterns, ["*", "claude-*"])
    assert.deepStrictEqual([policy.lines.warning.value, policy.lines.warning.source], [45000, "model"])
    assert.strictEqual(policy.lines.warning.key, "pi-context.models[\"claude-*\"].warningLine")
    assert.deepStrictEqual([policy.lines.guidance.value, policy.lines.guidance.source], [50000, "global"])
    assert.strictEqual(policy.automaticReset.value, false)
    assert.strictEqual(resolvePolicy(sources, { ...model, id: "gpt-5" }).lines.warning.value, 20000)
  })

  it("matches a model pattern on provider/id too, and an exact id beats a glob", () => {
    const sources = [global({ "pi-context": { models: { "anthropic/*": { hardLine: 10000 }, "claude-sonnet-4": { hardLine: 12000 } } } })]
    assert.strictEqual(resolvePolicy(sources, model).lines.hard.value, 12000)
    assert.strictEqual(resolvePolicy(sources, { ...model, id: "claude-opus" }).lines.hard.value, 10000)
  })

  it("reports keys that cannot be set per model and non-object sections, never throwing", () => {
    const policy = resolvePolicy([
      global({ "pi-context": { models: { "*": { traceLevel: "debug" }, "x": 3 } } }),
      project({ "pi-context": 7 })
    ], model)
    assert.deepStrictEqual(policy.notices.map((n) => n.key), ["pi-context.models[\"x\"]", "pi-context", "pi-context.models[\"*\"].traceLevel"])
    assert.strictEqual(policy.traceLevel.value, "info")
  })

  it("validates the other keys under pi-context", () => {
    const policy = resolvePolicy([global({ "pi-context": { enabled: "yes", traceLevel: "verbose", bootBudgetTokens: 0 } })], model)
    assert.deepStrictEqual([policy.enabled.value, policy.traceLevel.value, policy.bootBudgetTokens.value], [true, "info", 6000])
    assert.strictEqual(policy.notices.length, 3)
  })

  it("marks injected values as injected", () => {
    const policy = resolvePolicy([global({ "pi-context": { warningLine: 40000 } }), injectedSource({ warningLine: 33000, traceLevel: "debug" })], model)
    assert.deepStrictEqual([policy.lines.warning.value, policy.lines.warning.source], [33000, "injected"])
    assert.strictEqual(policy.traceLevel.source, "injected")
  })

  it("skips window checks when there is no model", () => {
    const policy = resolvePolicy([], undefined)
    assert.deepStrictEqual([policy.lines.guidance.value, policy.lines.hard.value], [40960, 16384])
    assert.deepStrictEqual(policy.notices, [])
  })
})
