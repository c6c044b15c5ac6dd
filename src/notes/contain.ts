import { Effect, Option, type PlatformError } from "effect"
import { inside, type Placement } from "./placement.ts"
import { type DiskOps, isNotFound } from "./disk.ts"

/**
 * The one check of every folder the store writes: each existing step from
 * `base` down through `segments` is looked at without following links, and
 * a symbolic link must lead to something that exists inside `base` (as
 * resolved). A step not created yet ends the walk: nothing below it can be a
 * link yet, and it will be created as a real folder.
 */

/** The real path of `target`, or of its deepest existing ancestor with the rest joined back on. */
const realOrAncestor = (ops: DiskOps, target: string): Effect.Effect<string, PlatformError.PlatformError> =>
  ops.fs.realPath(target).pipe(
    Effect.catchIf(isNotFound, () => {
      const parent = ops.path.dirname(target)
      return parent === target ? Effect.succeed(target) : Effect.map(realOrAncestor(ops, parent), (real) => ops.path.join(real, ops.path.basename(target)))
    })
  )

export const isInsideFolder = (ops: DiskOps, dir: string, candidate: string): boolean =>
  candidate === dir || candidate.startsWith(dir.endsWith(ops.path.sep) ? dir : dir + ops.path.sep)

/** Where `base/segments…` leads, judged against `base`. */
export const placeUnder = (ops: DiskOps, base: string, segments: ReadonlyArray<string>): Effect.Effect<Placement, PlatformError.PlatformError> =>
  Effect.gen(function*() {
    const realBase = yield* realOrAncestor(ops, base)
    let current = base
    for (let i = 0; i < segments.length; i++) {
      current = ops.path.join(current, segments[i]!)
      const info = yield* ops.fs.lstat(current).pipe(Effect.map(Option.some), Effect.catchIf(isNotFound, () => Effect.succeedNone))
      if (Option.isNone(info)) return inside
      if (info.value.type !== "SymbolicLink") continue
      const link = segments.slice(0, i + 1).join("/")
      const real = yield* ops.fs.realPath(current).pipe(Effect.map(Option.some), Effect.catchIf(isNotFound, () => Effect.succeedNone))
      if (Option.isNone(real)) return { _tag: "Dangling", link } satisfies Placement
      if (!isInsideFolder(ops, realBase, real.value)) return { _tag: "Outside", link } satisfies Placement
    }
    return inside
  })
