import { assert, describe, it } from "@effect/vitest"
import {
  AbandonedTempMs,
  FutureToleranceMs,
  judgeLock,
  holdOf,
  judgeMarker,
  type LockJudge,
  leftoverIsStale,
  leftoverOf,
  MaxLockHoldMs,
  parseLockOwner,
  StaleLockMs,
  StaleTempMs,
  UnreadableLockGraceMs
} from "../../src/notes/lockRules.ts"

const alive = new Set([1, 4242])
const judge: LockJudge = { host: "here", pid: 4242, holds: (token) => token === "mine", isAlive: (pid) => alive.has(pid) }
const owner = (fields: Partial<{ pid: number; host: string; token: string; at: number }> = {}) => ({ pid: 1, host: "here", token: "t", at: 0, ...fields })
const verdict = (text: string, ageMs: number) => judgeLock({ owner: parseLockOwner(text), ageMs }, judge)

describe("note lock verdicts", () => {
  it("reads an owner only from a whole lock: empty, truncated, foreign or nonsense pids are unreadable", () => {
    assert.deepStrictEqual(parseLockOwner(JSON.stringify(owner())), owner())
    for (const text of ["", "{\"pid\":12", "not json", "{}", JSON.stringify(owner({ pid: 0 })), JSON.stringify(owner({ pid: -1 })), JSON.stringify(owner({ pid: 1.5 }))]) {
      assert.isUndefined(parseLockOwner(text), text)
    }
  })

  it("holds a fresh lock of a live owner on this host, and of anyone on another host", () => {
    assert.deepStrictEqual(verdict(JSON.stringify(owner()), 0), { _tag: "Held" })
    assert.deepStrictEqual(verdict(JSON.stringify(owner({ host: "elsewhere", pid: 999_999 })), StaleLockMs), { _tag: "Held" })
    assert.deepStrictEqual(verdict(JSON.stringify(owner({ pid: 4242, token: "mine" })), 1_000), { _tag: "Held" })
  })

  it("takes over a lock whose owner is gone, or which this process does not hold under its own pid", () => {
    assert.deepStrictEqual(verdict(JSON.stringify(owner({ pid: 999_999 })), 0), { _tag: "Stale", reason: "dead-owner" })
    assert.deepStrictEqual(verdict(JSON.stringify(owner({ pid: 4242, token: "left by an earlier process with this pid" })), 0), { _tag: "Stale", reason: "not-ours" })
  })

  it("judges age by the file, whatever the lock says: old from any host, including one timestamped in the future", () => {
    assert.deepStrictEqual(verdict(JSON.stringify(owner({ host: "elsewhere" })), StaleLockMs + 1), { _tag: "Stale", reason: "old" })
    assert.deepStrictEqual(verdict(JSON.stringify(owner({ host: "elsewhere", at: Date.UTC(2999, 0) })), StaleLockMs + 1), { _tag: "Stale", reason: "old" })
    // A live owner too: no write holds a lock that long.
    assert.deepStrictEqual(verdict(JSON.stringify(owner()), StaleLockMs + 1), { _tag: "Stale", reason: "old" })
  })

  it("honours the hold a lock's owner wrote (a tidy's pass), up to a day; a lock that names none is held as long as the taker's own", () => {
    const tidy = JSON.stringify({ ...owner({ host: "elsewhere" }), holdMs: 660_000 })
    assert.deepStrictEqual(verdict(tidy, StaleLockMs + 1), { _tag: "Held" })
    assert.deepStrictEqual(verdict(tidy, 660_001), { _tag: "Stale", reason: "old" })
    const forever = parseLockOwner(JSON.stringify({ ...owner(), holdMs: 1e15 }))
    assert.strictEqual(holdOf(forever, StaleLockMs), MaxLockHoldMs)
    assert.deepStrictEqual(judgeLock({ owner: forever, ageMs: MaxLockHoldMs + 1 }, { ...judge, host: "there" }), { _tag: "Stale", reason: "old" })
    assert.strictEqual(holdOf(parseLockOwner(JSON.stringify(owner())), 5_000), 5_000)
    assert.strictEqual(holdOf(undefined, 5_000), 5_000)
  })

  it("takes over a lock whose file is dated in the future beyond clock jitter", () => {
    assert.deepStrictEqual(verdict(JSON.stringify(owner({ host: "elsewhere" })), -FutureToleranceMs - 1), { _tag: "Stale", reason: "future" })
    assert.deepStrictEqual(verdict(JSON.stringify(owner()), -FutureToleranceMs + 1), { _tag: "Held" })
  })

  it("gives an unreadable lock a short grace (a writer between creating and filling it), then takes it over", () => {
    for (const text of ["", "{\"pid\":1,\"ho", "\u0000\u0000"]) {
      assert.deepStrictEqual(verdict(text, UnreadableLockGraceMs), { _tag: "Held" })
      assert.deepStrictEqual(verdict(text, UnreadableLockGraceMs + 1), { _tag: "Stale", reason: "unreadable" })
    }
  })

  it("judges a takeover marker by its owner on this host, by a short age elsewhere, and by the lock bound whatever its owner", () => {
    const marker = (fields: Parameters<typeof owner>[0], ageMs: number) => judgeMarker({ owner: owner(fields), ageMs }, judge)
    assert.deepStrictEqual(marker({ pid: 1 }, StaleLockMs), { _tag: "Held" })
    // A live pid past the lock bound is a reused pid, not a taker still at work.
    assert.deepStrictEqual(marker({ pid: 1 }, StaleLockMs + 1), { _tag: "Stale", reason: "old" })
    assert.deepStrictEqual(marker({ pid: 999_999 }, 0), { _tag: "Stale", reason: "dead-owner" })
    assert.deepStrictEqual(marker({ host: "elsewhere" }, 1_000), { _tag: "Held" })
    assert.deepStrictEqual(marker({ host: "elsewhere" }, 6_000), { _tag: "Stale", reason: "old" })
  })
})

describe("leftovers of killed writers", () => {
  it("recognises the store's temporary files and takeover markers, never a note or a live lock", () => {
    assert.deepStrictEqual(leftoverOf("plan.md.tmp-1234-7-k3j9"), { kind: "temp", pid: 1234 })
    assert.deepStrictEqual(leftoverOf("plan.md.lock.tmp-99-1-a"), { kind: "temp", pid: 99 })
    assert.deepStrictEqual(leftoverOf("plan.md.lock.break-1x2y3z-0"), { kind: "marker", pid: undefined })
    assert.deepStrictEqual(leftoverOf("plan.md.lock.stale-77-3-zz"), { kind: "marker", pid: 77 })
    for (const name of ["plan.md", "plan.md.lock", "notes.tmp-draft.md", "tmp-1-2-3.md", "a.md.tmp-x-1-2"]) assert.isUndefined(leftoverOf(name), name)
  })

  it("removes one once it is old and its writer is gone, or whoever wrote it after an hour", () => {
    const isAlive = (pid: number) => pid === 1
    assert.isFalse(leftoverIsStale({ kind: "temp", pid: 5 }, StaleTempMs, isAlive))
    assert.isTrue(leftoverIsStale({ kind: "temp", pid: 5 }, StaleTempMs + 1, isAlive))
    assert.isFalse(leftoverIsStale({ kind: "temp", pid: 1 }, StaleTempMs + 1, isAlive))
    assert.isTrue(leftoverIsStale({ kind: "temp", pid: 1 }, AbandonedTempMs + 1, isAlive))
    assert.isTrue(leftoverIsStale({ kind: "marker", pid: undefined }, StaleTempMs + 1, isAlive))
  })
})
