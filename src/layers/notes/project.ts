import { Effect, Option } from "effect"
import { gitdirOf } from "../../domain/notes/identity.ts"
import type { DiskOps } from "./disk.ts"

/**
 * The directory a project home is keyed on: the nearest git checkout above
 * `cwd`, the main checkout for a linked worktree, else `cwd` itself.
 * Never fails: an unreadable tree falls back to `cwd`.
 */
export const findProjectRoot = (ops: DiskOps, cwd: string): Effect.Effect<string> => {
  const { fs, path } = ops
  const readTrimmed = (file: string) =>
    fs.readFileString(file).pipe(Effect.map((text) => Option.some(text.trim())), Effect.orElseSucceed(() => Option.none<string>()))

  /** A `.git` file points at the worktree's git dir; its `commondir` leads to the main checkout's `.git`. */
  const rootFromGitFile = Effect.fnUntraced(function*(dir: string, dotGit: string) {
    const gitdir = gitdirOf(Option.getOrElse(yield* readTrimmed(dotGit), () => ""))
    if (gitdir === undefined) return dir
    const gitdirAbsolute = path.resolve(dir, gitdir)
    const commondir = yield* readTrimmed(path.join(gitdirAbsolute, "commondir"))
    // Without a commondir the .git file belongs to a submodule, a project of its own.
    return Option.match(commondir, {
      onNone: () => dir,
      onSome: (relative) => path.dirname(path.resolve(gitdirAbsolute, relative))
    })
  })

  const walkUp = (dir: string): Effect.Effect<string | undefined> =>
    fs.stat(path.join(dir, ".git")).pipe(
      Effect.map(Option.some),
      Effect.orElseSucceed(() => Option.none()),
      Effect.flatMap((info) => {
        if (Option.isSome(info)) {
          return info.value.type === "File" ? rootFromGitFile(dir, path.join(dir, ".git")) : Effect.succeed(dir)
        }
        const parent = path.dirname(dir)
        return parent === dir ? Effect.succeed(undefined) : walkUp(parent)
      })
    )

  return fs.realPath(cwd).pipe(
    Effect.orElseSucceed(() => path.resolve(cwd)),
    Effect.flatMap((start) => Effect.map(walkUp(start), (root) => root ?? start))
  )
}
