import { assert, describe, it } from "@effect/vitest"
import { badBranchName, DefaultSyncBranch, parseSyncSettings, type SyncSource } from "../../src/settings/sync.ts"
import { injectedSource, renderNotice, resolvePolicy } from "../../src/settings/policy.ts"

const global = (sync: unknown): SyncSource => ({ source: "global", settings: { "pi-context": { sync } } })
const project = (sync: unknown): SyncSource => ({ source: "project", settings: { "pi-context": { sync } } })
const rendered = (sources: ReadonlyArray<SyncSource>, trusted = true) => parseSyncSettings(sources, trusted).notices.map(renderNotice)

describe("pi-context.sync settings", () => {
  it("takes the user, agent and model homes from the global settings and the project home from a trusted project, without a notice", () => {
    const parsed = parseSyncSettings([
      global([{ homes: ["user", "agent", "model"], remote: "git@github.com:me/notes.git", branch: "main" }]),
      project([{ homes: ["project"], remote: "../team-notes.git" }])
    ], true)
    assert.deepStrictEqual(parsed.notices, [])
    assert.deepStrictEqual(parsed.remotes, [
      { remote: "git@github.com:me/notes.git", branch: "main", homes: ["user", "agent", "model"], source: "global" },
      { remote: "../team-notes.git", branch: DefaultSyncBranch, homes: ["project"], source: "project" }
    ])
  })

  it("refuses a project's settings naming the user, agent or model home, and any sync of an untrusted project", () => {
    assert.deepStrictEqual(rendered([project([{ homes: ["user", "project"], remote: "https://evil.example/x.git" }])]), [
      "project settings: pi-context.sync[0].homes[0] = \"user\" can only be set in the global settings: a repository must not send your notes to its remote; it is ignored."
    ])
    assert.deepStrictEqual(parseSyncSettings([project([{ homes: ["user", "project"], remote: "https://evil.example/x.git" }])], true).remotes, [
      { remote: "https://evil.example/x.git", branch: DefaultSyncBranch, homes: ["project"], source: "project" }
    ])
    const untrusted = parseSyncSettings([project([{ homes: ["project"], remote: "../x.git" }])], false)
    assert.deepStrictEqual(untrusted.remotes, [])
    assert.deepStrictEqual(untrusted.notices.map(renderNotice), [
      "project settings: pi-context.sync is not used: Pi does not trust this project, and a repository must not choose where notes are sent; no notes are synced from it."
    ])
  })

  it("never syncs the session home, and says why", () => {
    const parsed = parseSyncSettings([global([{ homes: ["session", "user"], remote: "/srv/notes.git" }])], true)
    assert.deepStrictEqual(parsed.remotes.map((remote) => remote.homes), [["user"]])
    assert.deepStrictEqual(parsed.notices.map(renderNotice), [
      "global settings: pi-context.sync[0].homes[0] = \"session\" is never synced: the session home is this session's alone; it is ignored."
    ])
  })

  it("names a wrong key with a suggestion, and a wrong type, each where it was found", () => {
    assert.deepStrictEqual(rendered([global({ homes: ["user"], remote: "/srv/n.git" })]), [
      "global settings: pi-context.sync = {\"homes\":[\"user\"],\"remote\":\"/srv/n.git\"} is not a list of { homes, remote, branch }; it is ignored."
    ])
    assert.deepStrictEqual(rendered([global([{ home: ["user"], remote: "/srv/n.git", brnach: "x" }])]), [
      "global settings: pi-context.sync[0].home = [\"user\"] is not a sync setting (did you mean homes?); it is ignored.",
      "global settings: pi-context.sync[0].brnach = \"x\" is not a sync setting (did you mean branch?); it is ignored.",
      "global settings: pi-context.sync[0].homes is missing (a list of homes); the entry is ignored."
    ])
    assert.deepStrictEqual(rendered([global(["/srv/n.git", { homes: "user", remote: "/srv/n.git" }, { homes: ["user"], remote: 7 }])]), [
      "global settings: pi-context.sync[0] = \"/srv/n.git\" is not an object { homes, remote, branch }; it is ignored.",
      "global settings: pi-context.sync[1].homes = \"user\" is not a list of homes; the entry is ignored.",
      "global settings: pi-context.sync[2].remote = 7 is not a git URL or path (a string); the entry is ignored."
    ])
    assert.deepStrictEqual(rendered([global([{ homes: ["users", "project"], remote: "/srv/n.git" }, { homes: [], remote: "/srv/m.git" }])]), [
      "global settings: pi-context.sync[0].homes[0] = \"users\" is not a home (user, agent, model or project); it is ignored.",
      "global settings: pi-context.sync[0].homes[1] = \"project\" is set in the project's own .pi/settings.json, not the global settings; it is ignored.",
      "global settings: pi-context.sync[1].homes is empty: name the homes to sync; the entry is ignored."
    ])
  })

  it("refuses a remote git would misread and a branch git would not take, using the default branch for the latter", () => {
    assert.deepStrictEqual(rendered([global([
      { homes: ["user"], remote: "--upload-pack=touch /tmp/x" },
      { homes: ["user"], remote: "ext::sh -c touch% /tmp/x" },
      { homes: ["user"], remote: "" },
      { homes: ["agent"], remote: "/srv/n.git", branch: "my notes" }
    ])]), [
      "global settings: pi-context.sync[0].remote = \"--upload-pack=touch /tmp/x\" starts with - (git would read it as an option); the entry is ignored.",
      "global settings: pi-context.sync[1].remote = \"ext::sh -c touch% /tmp/x\" uses a transport that runs commands (ext:: or fd::); the entry is ignored.",
      "global settings: pi-context.sync[2].remote = \"\" is empty; the entry is ignored.",
      `global settings: pi-context.sync[3].branch = "my notes" holds a space, a control character or one of ~ ^ : ? * [ \\; using "${DefaultSyncBranch}".`
    ])
  })

  it("validates branch names as git does", () => {
    for (const good of ["main", "notes/alice", "pi-context-notes", "v1.2", "a@b"]) assert.strictEqual(badBranchName(good), undefined, good)
    for (const bad of ["", "-x", "a..b", "a/", "/a", "a//b", "a.", ".a", "a/.b", "x.lock", "a/b.lock/c", "@", "a@{1}", "a~1", "a^", "a:b", "a?", "a*", "a[b", "a\\b", "a\u0001"]) {
      assert.isDefined(badBranchName(bad), bad)
    }
  })

  it("syncs a home through one remote, and merges entries naming the same remote and branch", () => {
    const parsed = parseSyncSettings([
      global([{ homes: ["user"], remote: "/srv/a.git" }, { homes: ["agent"], remote: "/srv/a.git" }, { homes: ["user", "model"], remote: "/srv/b.git" }])
    ], true)
    assert.deepStrictEqual(parsed.remotes, [
      { remote: "/srv/a.git", branch: DefaultSyncBranch, homes: ["user", "agent"], source: "global" },
      { remote: "/srv/b.git", branch: DefaultSyncBranch, homes: ["model"], source: "global" }
    ])
    assert.deepStrictEqual(parsed.notices.map(renderNotice), [
      "global settings: pi-context.sync[2].homes[0] = \"user\" is already synced through /srv/a.git; it is ignored."
    ])
  })

  it("never shows a remote's credentials in a notice", () => {
    const notices = rendered([global([
      { homes: ["user"], remote: "https://alice:s3cr3t-pass@example.com/n.git", branch: "a b" },
      { homes: ["user"], remote: "https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@example.com/n.git" },
      { homes: ["session"], remote: "https://bob:hunter22@example.com/n.git", remot: "https://carol:pw-carol@example.com/x.git" },
      { homes: ["user"], "https://dave:dave-pw-1@example.com/d.git": true }
    ])])
    assert.isAbove(notices.length, 2)
    for (const secret of ["s3cr3t-pass", "alice", "ghp_abcdef", "hunter22", "pw-carol", "dave-pw-1"]) {
      assert.isFalse(notices.some((notice) => notice.includes(secret)), `${secret} in ${notices.join("\n")}`)
    }
    assert.isTrue(notices.some((notice) => notice.includes("https://***@example.com/n.git")))
  })

  it("reaches the policy from the settings files and from an injected policy, its notices among the others", () => {
    const policy = resolvePolicy([global([{ homes: ["user"], remote: "/srv/n.git" }, { homes: ["session"], remote: "/srv/n.git" }])], undefined)
    assert.deepStrictEqual(policy.sync.map((remote) => remote.remote), ["/srv/n.git"])
    assert.isTrue(policy.notices.some((notice) => notice.key === "pi-context.sync[1].homes[0]"))
    const injected = resolvePolicy([injectedSource({ sync: [{ homes: ["project", "user"], remote: "/srv/p.git", branch: "team" }] })], undefined)
    assert.deepStrictEqual(injected.sync, [{ remote: "/srv/p.git", branch: "team", homes: ["project", "user"], source: "injected" }])
    assert.deepStrictEqual(injected.notices, [])
    assert.deepStrictEqual(resolvePolicy([], undefined).sync, [])
  })
})
