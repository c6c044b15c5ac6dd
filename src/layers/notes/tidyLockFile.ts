import { hostname } from "node:os"
import { Clock, Effect, Option } from "effect"
import { judgeLock, parseLockOwner } from "../../domain/notes/lockRules.ts"
import {
  describeTakenOver,
  describeTidyLockHeld,
  describeTidyLockMisfit,
  TidyLockName,
  tidyLockHoldMs,
  type TidyLockMisfit
} from "../../domain/notes/tidyLockRules.ts"
import { TidyLockUnavailable } from "../../services/NotesStore.ts"
import { type DiskOps, isAlreadyExists, isNotFound, uniqueToken } from "./disk.ts"
import { dropToken, holdToken, lockJudge, lockMtimeOf, lockProtocol } from "./noteLockFile.ts"

/** Attempts at the lock before giving up: each one after the first follows a takeover of a stale lock. */
const Attempts = 4

const misfitOf = (type: string): TidyLockMisfit | undefined =>
  type === "File" ? undefined : type === "Directory" ? "folder" : type === "SymbolicLink" ? "link" : "other"

/**
 * Runs `use` holding `<root>/.tidy.lock`, created whole (written beside it,
 * then hard-linked into place) and naming its pass's time limit. A lock
 * whose owner is gone (its pid, on this host), that is older than its pass
 * may run, or that stayed unreadable is taken over as a note's lock is, by
 * one taker only; anything else at that name is named with its fix.
 * `use` gets the line to report when a lock was taken over.
 */
export const withTidyLock = <A, E, R>(ops: DiskOps, root: string, limitMs: number, use: (takenOver: string | undefined) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const file = ops.path.join(root, TidyLockName)
    const token = yield* uniqueToken
    const candidate = `${file}.tmp-${token}`
    const refused = (message: string) => new TidyLockUnavailable({ message })
    const failed = (error: { readonly message: string }) => refused(`pi-context: tidy could not take its lock in the notes root: ${error.message}`)
    yield* ops.fs.makeDirectory(root, { recursive: true }).pipe(Effect.mapError(failed))

    const take = Effect.gen(function*() {
      // Known as ours before the lock exists, so no other fiber of this process judges it stale.
      yield* holdToken(token)
      let takenOver: string | undefined
      for (let attempt = 0; attempt < Attempts; attempt++) {
        const at = yield* Clock.currentTimeMillis
        yield* ops.fs.writeFileString(candidate, JSON.stringify({ pid: process.pid, host: hostname(), token, at, limitMs }))
        const fsNow = lockMtimeOf(yield* ops.fs.stat(candidate))
        const linked = yield* Effect.result(ops.fs.link(candidate, file))
        if (linked._tag === "Success") return takenOver
        if (!isAlreadyExists(linked.failure)) return yield* linked.failure
        const info = yield* ops.fs.lstat(file).pipe(Effect.map(Option.some), Effect.catchIf(isNotFound, () => Effect.succeedNone))
        if (Option.isNone(info)) continue
        const misfit = misfitOf(info.value.type)
        if (misfit !== undefined) return yield* refused(describeTidyLockMisfit(misfit, file))
        const seen = yield* lockProtocol.look(ops, file)
        if (Option.isNone(seen)) continue
        const owner = parseLockOwner(seen.value.text)
        const ageMs = fsNow - seen.value.mtimeMs
        const holdMs = tidyLockHoldMs(seen.value.text, limitMs)
        if (judgeLock({ owner, ageMs }, lockJudge, holdMs)._tag === "Held") return yield* refused(describeTidyLockHeld(owner, ageMs, holdMs))
        yield* lockProtocol.takeOver(ops, file, seen.value, token, fsNow)
        takenOver = describeTakenOver(owner, ageMs)
      }
      return yield* refused("pi-context: another tidy just started on these notes; try again when it has finished.")
    }).pipe(
      Effect.ensuring(Effect.ignore(ops.fs.remove(candidate))),
      Effect.mapError((error) => (error._tag === "TidyLockUnavailable" ? error : failed(error))),
      Effect.onError(() => dropToken(token))
    )

    const release = Effect.ignore(
      lockProtocol.look(ops, file).pipe(
        Effect.flatMap((seen) => Option.isSome(seen) && parseLockOwner(seen.value.text)?.token === token ? ops.fs.remove(file) : Effect.void)
      )
    ).pipe(Effect.ensuring(dropToken(token)))
    return yield* Effect.acquireUseRelease(take, use, () => release)
  })
