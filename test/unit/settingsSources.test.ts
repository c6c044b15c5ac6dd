import { assert, describe, it } from "@effect/vitest"
import { attributeSettings } from "../../src/settings/sources.ts"
import { keepWrittenNumbers, WrittenNumber } from "../../src/settings/notice.ts"
import type { SettingsSource } from "../../src/settings/policy.ts"

const file = (source: "global" | "project", text: string): SettingsSource => ({ source, settings: JSON.parse(text, keepWrittenNumbers) })

describe("where each effective setting came from", () => {
  it("a value a file holds is named after that file, the project first; any other was set through Pi", () => {
    const global = file("global", `{ "pi-context": { "guidanceLine": 50000, "warningLine": 28000 }, "compaction": { "reserveTokens": 20000 } }`)
    const project = file("project", `{ "pi-context": { "guidanceLine": 50000 } }`)
    const effective = { "pi-context": { guidanceLine: 50000, warningLine: 30000, hardLine: 9000 }, compaction: { reserveTokens: 20000, enabled: false } }
    assert.deepStrictEqual(attributeSettings(effective, [global, project]), [
      { source: "global", settings: { compaction: { reserveTokens: 20000 } } },
      { source: "project", settings: { "pi-context": { guidanceLine: 50000 } } },
      { source: "pi", settings: { "pi-context": { warningLine: 30000, hardLine: 9000 }, compaction: { enabled: false } } }
    ])
  })

  it("model overrides Pi merged from both files are split per key; a number JSON cannot hold keeps its written text", () => {
    const global = file("global", `{ "pi-context": { "warningLine": 1e400, "models": { "anthropic/*": { "warningLine": 40000 } } } }`)
    const project = file("project", `{ "pi-context": { "models": { "anthropic/*": { "hardLine": 9000 } } } }`)
    const effective = { "pi-context": { warningLine: Infinity, models: { "anthropic/*": { warningLine: 40000, hardLine: 9000 } } } }
    const [fromGlobal, fromProject, ...rest] = attributeSettings(effective, [global, project])
    assert.deepStrictEqual(rest, [])
    const globalSection = (fromGlobal!.settings as { "pi-context": { warningLine: unknown; models: unknown } })["pi-context"]
    assert.instanceOf(globalSection.warningLine, WrittenNumber)
    assert.strictEqual((globalSection.warningLine as WrittenNumber).text, "1e400")
    assert.deepStrictEqual(globalSection.models, { "anthropic/*": { warningLine: 40000 } })
    assert.deepStrictEqual(fromProject, { source: "project", settings: { "pi-context": { models: { "anthropic/*": { hardLine: 9000 } } } } })
  })

  it("a key only a file holds still applies from it, unless Pi's settings put a plain value above it", () => {
    const global = file("global", `{ "pi-context": { "digestTokens": 900, "models": { "x": { "hardLine": 1 } } } }`)
    assert.deepStrictEqual(attributeSettings({}, [global]), [global])
    assert.deepStrictEqual(attributeSettings({ "pi-context": { models: "none" } }, [global]), [
      { source: "global", settings: { "pi-context": { digestTokens: 900 } } },
      { source: "pi", settings: { "pi-context": { models: "none" } } }
    ])
  })

  it("a key named __proto__ stays a key and changes no prototype", () => {
    const effective = JSON.parse(`{ "pi-context": { "__proto__": { "enabled": false } } }`)
    const [pi] = attributeSettings(effective, [])
    const section = (pi!.settings as Record<string, Record<string, unknown>>)["pi-context"]!
    assert.deepStrictEqual(Object.keys(section), ["__proto__"])
    assert.strictEqual(Object.getPrototypeOf(section), Object.prototype)
    assert.isUndefined(({} as { enabled?: unknown }).enabled)
  })
})
