import { assert, describe, it } from "@effect/vitest"
import type { RemoteSyncState } from "../../src/notes/sync/syncTypes.ts"
import { pendingConflicts, shownPath, syncDoctorLine, syncNeedsAttention, syncNowText, syncStatusText } from "../../src/notes/sync/syncView.ts"

const now = 1_800_000_000_000
const minutes = (count: number) => now - count * 60_000
const setup = { globalSettings: "~/.pi/agent/settings.json", ignored: [] }

const healthy: RemoteSyncState = {
  remote: "git@github.com:me/notes.git",
  branch: "pi-context-notes",
  homes: ["user", "agent", "model"],
  lastPull: { _tag: "Ok", atMs: minutes(3), detail: "3 notes pulled" },
  lastPush: { _tag: "Ok", atMs: minutes(1), detail: "2 commits pushed" },
  ahead: 0,
  behind: 0,
  conflicts: [],
  diverged: undefined,
  pushPending: false
}

const troubled: RemoteSyncState = {
  remote: "https://***@example.com/team.git",
  branch: "notes",
  homes: ["project"],
  lastPull: { _tag: "Failed", atMs: minutes(10), kind: "diverged", detail: "the remote's branch no longer holds the last pull" },
  lastPush: { _tag: "Failed", atMs: minutes(2), kind: "auth", detail: "fatal: Authentication failed for 'https://***@example.com/team.git/'" },
  ahead: 2,
  behind: 5,
  conflicts: [{ home: "project", note: "plan.md", copy: "plan.conflict-20261201T211503Z.md", atMs: minutes(10) }],
  diverged: { backupRef: "refs/pi-context/backup/notes-20261201T211503Z", atMs: minutes(10) },
  pushPending: true
}

describe("the notes sync view", () => {
  it("shows each remote's homes, last pull and push with result and age, and how far apart it is", () => {
    assert.strictEqual(
      syncStatusText([healthy], now, setup),
      [
        "pi-context notes sync · 1 remote",
        "git@github.com:me/notes.git · branch pi-context-notes · user, agent, model",
        "  last pull: ok 3 min ago (3 notes pulled)",
        "  last push: ok 1 min ago (2 commits pushed)",
        "  0 commits to push, 0 to pull",
        "/pi-context notes sync now pulls and pushes every remote now."
      ].join("\n")
    )
  })

  it("shows a remote never synced, a failure with git's redacted words, the divergence once and each conflict copy", () => {
    const fresh: RemoteSyncState = { ...healthy, lastPull: undefined, lastPush: undefined, ahead: undefined, behind: undefined }
    assert.strictEqual(
      syncStatusText([fresh, troubled], now, setup),
      [
        "pi-context notes sync · 2 remotes",
        "git@github.com:me/notes.git · branch pi-context-notes · user, agent, model",
        "  last pull: not yet",
        "  last push: not yet",
        "  ahead/behind: not known until a fetch succeeds",
        "https://***@example.com/team.git · branch notes · project",
        "  last pull: failed 10 min ago: the remote's history was rewritten",
        "  last push: failed 2 min ago: the remote refused the credentials (fatal: Authentication failed for 'https://***@example.com/team.git/')",
        "  2 commits to push, 5 to pull",
        "  diverged 10 min ago: the remote's history was rewritten, so nothing is pushed over it; your local history is saved at refs/pi-context/backup/notes-20261201T211503Z; run /pi-context notes sync now to merge",
        "  conflicts pending (1): merge the copy into the note, then delete or retire the copy",
        "    @project/plan.md: the other side's text is kept in @project/plan.conflict-20261201T211503Z.md",
        "/pi-context notes sync now pulls and pushes every remote now."
      ].join("\n")
    )
  })

  it("says a push is pending until it is tried again, unless the remote diverged (then it waits for sync now)", () => {
    const pending = { ...healthy, pushPending: true, lastPush: { _tag: "Failed", atMs: minutes(1), kind: "timeout", detail: "cut after 10 s" } } as const
    assert.include(syncStatusText([pending], now, setup), "  last push: failed 1 min ago: timed out (cut after 10 s)\n  0 commits to push, 0 to pull\n  push pending: tried again at the next window's commit\n")
    assert.notInclude(syncStatusText([troubled], now, setup), "push pending")
  })

  it("explains how to set a remote when none is configured", () => {
    const text = syncStatusText([], now, setup)
    assert.include(text, "No remote is configured: the notes stay on this machine.")
    assert.include(text, "\"sync\": [{ \"homes\": [\"user\", \"agent\", \"model\"], \"remote\": \"git@github.com:you/notes.git\" }]")
    assert.include(syncNowText([], now, setup), "pi-context notes sync now: nothing to sync")
  })

  it("names the global settings file this session reads, and says why the entries set were ignored", () => {
    assert.include(syncStatusText([], now, { globalSettings: "/srv/pi-agent/settings.json", ignored: [] }), "add to /srv/pi-agent/settings.json:")
    const ignored = syncStatusText([], now, {
      ...setup,
      ignored: ["settings.json: pi-context.sync[0].remote = \"\" is empty; it is ignored.", "settings.json: pi-context.sync[1].homes[0] = \"nowhere\" is not a home (user, agent, model or project); it is ignored."]
    })
    assert.strictEqual(
      ignored,
      [
        "pi-context notes sync",
        "No remote is set, because each pi-context.sync entry was ignored: the notes stay on this machine.",
        "  settings.json: pi-context.sync[0].remote = \"\" is empty; it is ignored.",
        "  settings.json: pi-context.sync[1].homes[0] = \"nowhere\" is not a home (user, agent, model or project); it is ignored.",
        "Fix the entries as each line says (docs/sync.md)."
      ].join("\n")
    )
    assert.notInclude(ignored, "No remote is configured")
  })

  it("shows a path under the user's home from ~", () => {
    assert.strictEqual(shownPath("/home/me/.pi/agent/settings.json", "/home/me"), "~/.pi/agent/settings.json")
    assert.strictEqual(shownPath("/home/me/.pi/agent/settings.json", "/home/me/"), "~/.pi/agent/settings.json")
    assert.strictEqual(shownPath("/home/meg/settings.json", "/home/me"), "/home/meg/settings.json")
    assert.strictEqual(shownPath("/etc/pi/settings.json", undefined), "/etc/pi/settings.json")
    assert.strictEqual(shownPath("/settings.json", "/"), "/settings.json")
  })

  it("titles a sync now by what failed", () => {
    assert.strictEqual(syncNowText([healthy], now, setup).split("\n")[0], "pi-context notes sync now: 1 remote synced")
    assert.strictEqual(syncNowText([healthy, troubled], now, setup).split("\n")[0], "pi-context notes sync now: 1 of 2 remotes failed, 1 conflict to resolve")
    assert.isFalse(syncNeedsAttention([healthy]))
    assert.isTrue(syncNeedsAttention([healthy, troubled]))
    assert.isTrue(syncNeedsAttention([{ ...healthy, conflicts: troubled.conflicts }]))
  })
})

describe("doctor's notes sync line", () => {
  it("is ok with the last sync's age, or not synced yet", () => {
    assert.deepStrictEqual(syncDoctorLine(healthy, now), { ok: true, text: "notes sync git@github.com:me/notes.git (user, agent, model): synced 1 min ago" })
    assert.deepStrictEqual(syncDoctorLine({ ...healthy, lastPull: undefined, lastPush: undefined }, now), {
      ok: true,
      text: "notes sync git@github.com:me/notes.git (user, agent, model): not synced yet"
    })
  })

  it("names an unreachable remote and an authentication failure, each with its fix", () => {
    const unreachable = syncDoctorLine({ ...healthy, lastPull: { _tag: "Failed", atMs: minutes(1), kind: "unreachable", detail: "" } }, now)
    assert.deepStrictEqual(unreachable, {
      ok: false,
      text: "notes sync git@github.com:me/notes.git (user, agent, model): pull failed: cannot reach the remote; check the URL and the network: `git ls-remote git@github.com:me/notes.git`"
    })
    const auth = { _tag: "Failed", atMs: minutes(1), kind: "auth", detail: "" } as const
    assert.strictEqual(
      syncDoctorLine({ ...healthy, lastPull: auth, lastPush: auth }, now).text,
      "notes sync git@github.com:me/notes.git (user, agent, model): pull and push failed: the remote refused the credentials; check your ssh agent or credential helper: `git ls-remote git@github.com:me/notes.git`"
    )
  })

  it("names a diverged history with its backup ref, the pending conflicts and the failed push, each with its fix", () => {
    assert.deepStrictEqual(syncDoctorLine(troubled, now), {
      ok: false,
      text: "notes sync https://***@example.com/team.git (project): " + [
        "the remote's history was rewritten, so nothing is pushed over it; your local history is saved at refs/pi-context/backup/notes-20261201T211503Z; run /pi-context notes sync now to merge",
        "push failed: the remote refused the credentials; check your ssh agent or credential helper: `git ls-remote https://***@example.com/team.git`",
        "1 conflict pending (@project/plan.md: the other side's text is kept in @project/plan.conflict-20261201T211503Z.md): merge the copy into the note, then delete or retire the copy"
      ].join("; ")
    })
    assert.deepStrictEqual(syncDoctorLine({ ...healthy, pushPending: true }, now), {
      ok: false,
      text: "notes sync git@github.com:me/notes.git (user, agent, model): a push is pending: tried again at the next window's commit"
    })
  })

  it("lists the conflict copies for the notes view", () => {
    assert.deepStrictEqual(pendingConflicts([healthy, troubled]), [
      "@project/plan.md: the other side's text is kept in @project/plan.conflict-20261201T211503Z.md"
    ])
  })
})
