import { assert, describe, it } from "@effect/vitest"
import { modelKeys, settingsKeys } from "../../src/settings/keys.ts"
import { renderNotice, resolvePolicy, type SettingsSource } from "../../src/settings/policy.ts"

const model = { provider: "anthropic", id: "claude-sonnet-4", contextWindow: 200_000 }
const global = (section: unknown): SettingsSource => ({ source: "global", settings: { "pi-context": section } })

/** A bad value of every kind a settings file can hold: wrong types, null, lists, objects, texts for lists and numbers. */
const badValues: ReadonlyArray<unknown> = [null, true, false, 0, -5, 1.5, 1e400, "", "user", "true", "16384", "lots", [], ["user", 3], ["usr"], [{}], {}, { a: 1 }]

describe("every settings notice, with every kind of bad value", () => {
  const notices = settingsKeys.flatMap((key) =>
    [...badValues.map((value) => ({ [key]: value })), ...modelKeys.flatMap((name) => badValues.map((value) => ({ models: { "claude-*": { [name]: value } } })))]
      .flatMap((section) => resolvePolicy([global(section)], model).notices.map((notice) => ({ section, text: renderNotice(notice) })))
  )

  it("renders each as a sentence a person reads: no undefined, no value named twice, each key named", () => {
    assert.isAbove(notices.length, settingsKeys.length * 8)
    for (const { section, text } of notices) {
      const where = `${JSON.stringify(section)}: ${text}`
      assert.notInclude(text, "undefined", where)
      assert.notInclude(text, "NaN", where)
      assert.notInclude(text, "[object", where)
      assert.notMatch(text, /= (an object|a list) is (an object|a list)/, where)
      assert.notMatch(text, /= null is null/, where)
      assert.match(text, /^global settings: pi-context\.\S+/, where)
      assert.match(text, /; (using .+|.+)\.$/, where)
    }
  })

  it("names a wrong kind of value with the kind it expected, and how to write a quoted one", () => {
    const told = (section: unknown) => resolvePolicy([global(section)], model).notices.map(renderNotice)
    assert.deepStrictEqual(told({ afterReset: 3 }), ["global settings: pi-context.afterReset = 3 is a number, not a text; no instruction of yours is added to the boot."])
    assert.deepStrictEqual(told({ enabled: "true" }), [
      "global settings: pi-context.enabled = \"true\" is a text, not true or false; write it without the quotes: true; using true."
    ])
    assert.deepStrictEqual(told({ hardLine: "16384" }), [
      "global settings: pi-context.hardLine = \"16384\" is a text, not a number of tokens; write it without the quotes: 16384; using 16,384."
    ])
    assert.deepStrictEqual(told({ checkpointCheck: [] }), ["global settings: pi-context.checkpointCheck = [] is a list, not true or false; using true."])
    assert.deepStrictEqual(told({ digestTokens: null }), ["global settings: pi-context.digestTokens = null is empty (null), not a number of tokens; using 1,500."])
    assert.deepStrictEqual(told({ traceLevel: { level: "debug" } }), [
      "global settings: pi-context.traceLevel = {\"level\":\"debug\"} is an object, not one of \"off\", \"info\", \"debug\"; using \"info\"."
    ])
  })
})

describe("a protection list of the wrong kind never protects less than the default", () => {
  const policyOf = (section: unknown) => resolvePolicy([global(section)], model)

  it("a text naming homes means those homes (with the default's), and says how to write it", () => {
    const policy = policyOf({ readOnlyHomes: "user" })
    assert.deepStrictEqual(policy.readOnlyHomes.value, ["user"])
    assert.deepStrictEqual(policy.notices.map(renderNotice), [
      "global settings: pi-context.readOnlyHomes = \"user\" is a text, not a list of homes; write it as a list: [\"user\"]; using [\"user\"]."
    ])
    assert.deepStrictEqual(policyOf({ protectedHomes: "@project, agent" }).protectedHomes.value, ["user", "project", "agent"])
    // The consent gate reads the policy itself, so this is the protection the notes tools hold.
    const read = policyOf({ readOnlyHomes: "user", protectedHomes: "project" })
    assert.deepStrictEqual({ protectedHomes: read.protectedHomes.value, readOnlyHomes: read.readOnlyHomes.value }, {
      protectedHomes: ["user", "project"],
      readOnlyHomes: ["user"]
    })
  })

  it("a list naming something that is no home keeps the homes it names, with the default's", () => {
    const policy = policyOf({ readOnlyHomes: ["user", "usr"], protectedHomes: [3] })
    assert.deepStrictEqual(policy.readOnlyHomes.value, ["user"])
    assert.deepStrictEqual(policy.protectedHomes.value, ["user"])
    assert.include(policy.notices.map(renderNotice), "global settings: pi-context.readOnlyHomes = [\"user\",\"usr\"] names \"usr\", which is no home (session, project, user, agent, model); using [\"user\"].")
  })

  it("any other kind falls back to the default, named with the list it expected", () => {
    const policy = policyOf({ protectedHomes: { user: true } })
    assert.deepStrictEqual(policy.protectedHomes.value, ["user"])
    assert.deepStrictEqual(policy.notices.map(renderNotice), [
      "global settings: pi-context.protectedHomes = {\"user\":true} is an object, not a list of homes (session, project, user, agent, model), such as [\"user\"]; using [\"user\"]."
    ])
  })
})
