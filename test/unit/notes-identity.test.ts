import { assert, describe, it } from "@effect/vitest"
import { posix } from "node:path"
import { agentSlug, homeSegments, modelSlug, projectKeyOf, resolveNotesRoot, sessionSegment } from "../../src/notes/identity.ts"

const base = { agentDir: "/home/u/.pi/agent", cwd: "/work/repo", home: "/home/u", resolve: posix.resolve }

describe("notes identity", () => {
  it("takes the root from the env, then the setting, then the agent dir", () => {
    assert.strictEqual(resolveNotesRoot({ ...base, env: "/env/notes", setting: "/set/notes" }), "/env/notes")
    assert.strictEqual(resolveNotesRoot({ ...base, env: undefined, setting: "/set/notes" }), "/set/notes")
    assert.strictEqual(resolveNotesRoot({ ...base, env: " ", setting: 42 }), "/home/u/.pi/agent/pi-context/notes")
    assert.strictEqual(resolveNotesRoot({ ...base, env: undefined, setting: "~/notes" }), "/home/u/notes")
    assert.strictEqual(resolveNotesRoot({ ...base, env: "rel", setting: undefined }), "/work/repo/rel")
  })

  it("slugs the model id and the agent name", () => {
    assert.strictEqual(modelSlug("claude-sonnet-4.5"), "claude-sonnet-4-5")
    assert.strictEqual(modelSlug("openai/GPT-5 (preview)"), "openai-gpt-5-preview")
    assert.strictEqual(modelSlug(undefined), "unknown-model")
    assert.strictEqual(agentSlug(undefined), "pi")
    assert.strictEqual(agentSlug("Reviewer Bot"), "reviewer-bot")
    assert.strictEqual(agentSlug("../.."), "pi")
  })

  it("keys a project by its name and a hash of its root", () => {
    const key = projectKeyOf("/work/repo")
    assert.match(key, /^repo-[0-9a-f]{8}$/)
    assert.strictEqual(projectKeyOf("/work/repo/"), key)
    assert.notStrictEqual(projectKeyOf("/other/repo"), key)
  })

  it("never lets a session id walk the tree", () => {
    assert.strictEqual(sessionSegment("../../etc"), ".._.._etc")
    assert.strictEqual(sessionSegment(".."), "session-2")
    assert.strictEqual(sessionSegment("0190-abc"), "0190-abc")
  })

  it("places each home under the root", () => {
    const identity = { root: "/n", sessionId: "s1", projectKey: "repo-1", agentName: "pi", modelSlug: "m" }
    assert.deepStrictEqual(homeSegments(identity, "session"), ["sessions", "s1"])
    assert.deepStrictEqual(homeSegments(identity, "project"), ["projects", "repo-1"])
    assert.deepStrictEqual(homeSegments(identity, "user"), ["user"])
    assert.deepStrictEqual(homeSegments(identity, "agent"), ["agents", "pi"])
    assert.deepStrictEqual(homeSegments(identity, "model"), ["models", "m"])
  })
})
