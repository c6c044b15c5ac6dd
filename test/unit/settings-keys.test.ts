import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { closestKey, editDistance, settingsKeys } from "../../src/settings/keys.ts"
import { injectedSource, renderNotice, resolvePolicy, type SettingsSource, WrittenNumber } from "../../src/settings/policy.ts"

const model = { provider: "anthropic", id: "claude-sonnet-4", contextWindow: 200_000 }
const global = (section: unknown): SettingsSource => ({ source: "global", settings: { "pi-context": section } })
const project = (section: unknown): SettingsSource => ({ source: "project", settings: { "pi-context": section } })
const rendered = (sources: ReadonlyArray<SettingsSource>) => resolvePolicy(sources, model).notices.map(renderNotice)

describe("unknown settings keys", () => {
  it("names each unknown key once, where it was found, with the key it was probably meant to be", () => {
    assert.deepStrictEqual(rendered([global({ hardline: 12000, enabeld: false }), project({ warnLine: 30000 })]), [
      "global settings: pi-context.hardline = 12000 is not a pi-context setting (did you mean hardLine?); it is ignored.",
      "global settings: pi-context.enabeld = false is not a pi-context setting (did you mean enabled?); it is ignored.",
      "project settings: pi-context.warnLine = 30000 is not a pi-context setting (did you mean warningLine?); it is ignored."
    ])
  })

  it("leaves the suggestion out when no key is close, and never reports a known key", () => {
    const known = Object.fromEntries(settingsKeys.filter((key) => key !== "models").map((key) => [key, undefined]))
    assert.deepStrictEqual(rendered([global({ ...known, colourScheme: "dark" })]), [
      "global settings: pi-context.colourScheme = \"dark\" is not a pi-context setting; it is ignored."
    ])
    // Keys other helpers validate (checkpointCheck, digestTokens) are known here, so never "unknown".
    assert.deepStrictEqual(rendered([global({ checkpointCheck: true, digestTokens: 1500, notesRoot: "~/notes", agentName: "pi" })]), [])
  })

  it("checks the keys of every models override, matching the current model or not", () => {
    const policy = resolvePolicy([global({ models: { "gpt-*": { warnline: 20000 }, "claude-*": { hardLnie: 9000, traceLevel: "debug" } } })], model)
    assert.deepStrictEqual(policy.notices.map(renderNotice), [
      "global settings: pi-context.models[\"gpt-*\"].warnline = 20000 is not a pi-context setting (did you mean warningLine?); it is ignored.",
      "global settings: pi-context.models[\"claude-*\"].hardLnie = 9000 is not a pi-context setting (did you mean hardLine?); it is ignored.",
      "global settings: pi-context.models[\"claude-*\"].traceLevel = \"debug\" cannot be set per model; it is ignored."
    ])
    assert.strictEqual(policy.lines.hard.source, "default")
  })

  it("reports an unknown key of an injected policy too", () => {
    const policy = resolvePolicy([injectedSource({ warningLine: 30000, ...{ hardlien: 1 } })], model)
    assert.deepStrictEqual(policy.notices.map(renderNotice), [
      "injected policy: pi-context.hardlien = 1 is not a pi-context setting (did you mean hardLine?); it is ignored."
    ])
  })
})

describe("key suggestions", () => {
  it("counts a swap of neighbours as one edit, and compares without case", () => {
    assert.strictEqual(editDistance("enabeld", "enabled"), 1)
    assert.strictEqual(editDistance("kitten", "sitting"), 3)
    assert.strictEqual(closestKey("HARDLINE", settingsKeys), "hardLine")
    assert.strictEqual(closestKey("warnLine", settingsKeys), "warningLine")
    assert.strictEqual(closestKey("bootBudget", settingsKeys), "bootBudgetTokens")
    assert.strictEqual(closestKey("x", settingsKeys), undefined)
    assert.strictEqual(closestKey("a".repeat(10_000), settingsKeys), undefined)
  })
})

describe("wrong types of the notes keys", () => {
  it("gives notesRoot and agentName one notice each, naming the value", () => {
    assert.deepStrictEqual(rendered([global({ notesRoot: 42, agentName: ["pi"] })]), [
      "global settings: pi-context.notesRoot = 42 is a number, not a folder path (a text); it is ignored.",
      "global settings: pi-context.agentName = [\"pi\"] is a list, not a name (a text); using \"pi\"."
    ])
    assert.deepStrictEqual(rendered([global({ notesRoot: "  ", agentName: "!!!" })]), [
      "global settings: pi-context.notesRoot = \"  \" is empty; it is ignored.",
      "global settings: pi-context.agentName = \"!!!\" has no letters or digits; using \"pi\"."
    ])
  })

  it("judges only the value Pi's merged settings use: the project's", () => {
    assert.deepStrictEqual(rendered([global({ notesRoot: 7 }), project({ notesRoot: "~/notes" })]), [])
    assert.deepStrictEqual(rendered([global({ notesRoot: "~/notes" }), project({ notesRoot: false })]), [
      "project settings: pi-context.notesRoot = false is a yes-or-no value, not a folder path (a text); it is ignored."
    ])
  })

  it("names every other key's wrong type once", () => {
    const notices = resolvePolicy([global({ enabled: "yes", automaticReset: 1, traceLevel: true, bootBudgetTokens: "6k", hardLine: null })], model).notices
    assert.deepStrictEqual(notices.map((notice) => notice.key).sort(), [
      "pi-context.automaticReset",
      "pi-context.bootBudgetTokens",
      "pi-context.enabled",
      "pi-context.hardLine",
      "pi-context.traceLevel"
    ])
  })
})

describe("numbers beyond what JSON numbers hold", () => {
  it("names the value as written, not the null that JSON.stringify makes of Infinity", () => {
    assert.deepStrictEqual(rendered([global({ hardLine: new WrittenNumber("1e400", Infinity), warningLine: new WrittenNumber("-1e400", -Infinity) })]), [
      "global settings: pi-context.hardLine = 1e400 is too large; using 16,384.",
      "global settings: pi-context.warningLine = -1e400 is negative; using 28,672."
    ])
  })

  it("without the written text, names the key but not a value nobody wrote", () => {
    assert.deepStrictEqual(resolvePolicy([injectedSource({ hardLine: Infinity, warningLine: -Infinity })], model).notices.map(renderNotice), [
      "injected policy: pi-context.hardLine is too large; using 16,384.",
      "injected policy: pi-context.warningLine is negative; using 28,672."
    ])
  })

  it("checks a written number beyond the safe integers as the number it is, for every key", () => {
    assert.deepStrictEqual(rendered([global({ digestTokens: new WrittenNumber("1e20", 1e20), bootBudgetTokens: new WrittenNumber("1e20", 1e20) })]), [
      "global settings: pi-context.bootBudgetTokens = 1e20 is too large; using 6,000.",
      "global settings: pi-context.digestTokens = 1e20 is above the maximum of 8,000 tokens; using 8,000."
    ])
  })
})

describe("the keys the settings reference documents", () => {
  it("accepts projectNotes, staleNoteDays, tidyModel and the tidy limits with valid values, without a notice", () => {
    assert.deepStrictEqual(
      rendered([global({ projectNotes: "in-project", staleNoteDays: 30, tidyModel: "anthropic/claude-haiku-4", tidyTurnLimit: 20, tidyTimeLimitSeconds: 120 })]),
      []
    )
  })

  it("names a wrong value of each with what is used instead", () => {
    assert.deepStrictEqual(rendered([global({ projectNotes: "inproject", staleNoteDays: 0, tidyModel: "haiku", tidyTurnLimit: 2.5, tidyTimeLimitSeconds: "10m" })]), [
      "global settings: pi-context.projectNotes = \"inproject\" is not \"in-project\"; the project home stays in the notes root.",
      "global settings: pi-context.staleNoteDays = 0 is not a positive whole number; using 90.",
      "global settings: pi-context.tidyModel = \"haiku\" is not provider/model-id; tidy uses the session's model.",
      "global settings: pi-context.tidyTurnLimit = 2.5 is not a positive whole number; using 40.",
      "global settings: pi-context.tidyTimeLimitSeconds = \"10m\" is a text, not a positive whole number; using 600."
    ])
  })

  it("are exactly the keys of the settings check: the table of docs/settings.md and settingsKeys list the same keys", () => {
    const page = readFileSync(new URL("../../docs/settings.md", import.meta.url), "utf8")
    const section = page.slice(page.indexOf("## The keys"), page.indexOf("\n## ", page.indexOf("## The keys") + 1))
    const documented = [...section.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((match) => match[1]!)
    assert.isAbove(documented.length, 10)
    assert.deepStrictEqual([...documented].sort(), [...settingsKeys].sort())
  })
})
