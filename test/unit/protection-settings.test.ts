import { assert, describe, it } from "@effect/vitest"
import { resolvePolicy, renderNotice, type SettingsSource } from "../../src/settings/policy.ts"

const at = (source: SettingsSource["source"], section: Record<string, unknown>): SettingsSource => ({ source, settings: { "pi-context": section } })

const resolved = (sources: ReadonlyArray<SettingsSource>, projectTrusted = true) => {
  const policy = resolvePolicy(sources, undefined, { sources, projectTrusted })
  return { protectedHomes: policy.protectedHomes.value, readOnlyHomes: policy.readOnlyHomes.value, notices: policy.notices.map(renderNotice) }
}

describe("the homes' protection only grows from a project", () => {
  it("defaults to @user protected and nothing read-only; the global settings and the host set the lists as they like", () => {
    assert.deepStrictEqual(resolved([]), { protectedHomes: ["user"], readOnlyHomes: [], notices: [] })
    assert.deepStrictEqual(resolved([at("global", { protectedHomes: [], readOnlyHomes: ["@model"] })]), { protectedHomes: [], readOnlyHomes: ["model"], notices: [] })
    assert.deepStrictEqual(resolved([at("global", { protectedHomes: ["agent"] }), at("pi", { protectedHomes: ["@user", "project"] })]).protectedHomes, ["user", "project"])
  })

  it("a trusted project adds homes and cannot take one out: the homes it left out stay, with a notice naming them", () => {
    const lowered = resolved([at("global", { protectedHomes: ["user", "agent"], readOnlyHomes: ["model"] }), at("project", { protectedHomes: ["project"], readOnlyHomes: [] })])
    assert.deepStrictEqual(lowered.protectedHomes, ["user", "agent", "project"])
    assert.deepStrictEqual(lowered.readOnlyHomes, ["model"])
    assert.deepStrictEqual(lowered.notices, [
      'project settings: pi-context.protectedHomes = ["project"] leaves out @user, @agent, which a project cannot take out: only the global settings lower protection, so a repository cannot open your notes to its model; using ["user","agent","project"].',
      "project settings: pi-context.readOnlyHomes = [] leaves out @model, which a project cannot take out: only the global settings lower protection, so a repository cannot open your notes to its model; using [\"model\"]."
    ])
    // The default protects @user as a global list would.
    assert.deepStrictEqual(resolved([at("project", { protectedHomes: [] })]).protectedHomes, ["user"])
  })

  it("an untrusted project's lists are not read at all, and a list that names no home keeps what was there, with a notice", () => {
    assert.deepStrictEqual(resolved([at("project", { protectedHomes: ["agent"], readOnlyHomes: ["user"] })], false), { protectedHomes: ["user"], readOnlyHomes: [], notices: [] })
    const bad = resolved([at("global", { protectedHomes: ["agent"] }), at("project", { protectedHomes: "user", readOnlyHomes: ["nowhere"] })])
    // A text naming homes is read as that list, which a project adds to the global one.
    assert.deepStrictEqual([bad.protectedHomes, bad.readOnlyHomes], [["agent", "user"], []])
    assert.deepStrictEqual(bad.notices, [
      'project settings: pi-context.protectedHomes = "user" is a text, not a list of homes; write it as a list: ["user"]; it also leaves out @agent, which a project cannot take out: only the global settings lower protection, so a repository cannot open your notes to its model; using ["agent","user"].',
      'project settings: pi-context.readOnlyHomes = ["nowhere"] names "nowhere", which is no home (session, project, user, agent, model); using none.'
    ])
  })
})
