import { Effect, PlatformError } from "effect"
import { type DiskOps, isAlreadyExists, isNotFound } from "./disk.ts"

/**
 * `mkdir -p` that fails with the real cause. Node's recursive mkdir reports ENOENT when a folder it must
 * create cannot be made: on a read-only file system its mkdir gets EROFS, then the stat it makes of the
 * folder ENOENT, which it returns; "a folder disappeared, try again" would send a model retrying forever.
 * On ENOENT the first missing folder below the nearest one that exists is made on its own, whose failure
 * (EROFS, EACCES, ENOSPC) is the one told; when that works, the whole path is made again.
 */
export const makeFolders = (ops: DiskOps, dir: string): Effect.Effect<void, PlatformError.PlatformError> =>
  ops.fs.makeDirectory(dir, { recursive: true }).pipe(
    Effect.catchIf(isNotFound, (notFound) =>
      Effect.gen(function*() {
        let missing = ops.path.resolve(dir)
        while (true) {
          const parent = ops.path.dirname(missing)
          if (parent === missing) return yield* Effect.fail(notFound)
          if (yield* ops.fs.exists(parent).pipe(Effect.orElseSucceed(() => false))) break
          missing = parent
        }
        yield* ops.fs.makeDirectory(missing).pipe(Effect.catchIf(isAlreadyExists, () => Effect.void))
        yield* ops.fs.makeDirectory(dir, { recursive: true })
      }))
  )
