import { Effect, FileSystem, Path } from "effect"
import { type AnchoredFolder, homeAnchor, homeLocation, type NotesIdentity } from "./identity.ts"
import { inside } from "./placement.ts"
import type { HomeWritability, NotesWritability, Writability } from "./NotesStore.ts"
import { placeUnder } from "./contain.ts"
import { Homes } from "../kernel/homes.ts"

/**
 * Judges `dir` without writing anything: the nearest path that exists on the
 * way down to it must be a folder this process may write into (a note's
 * folders are created below it on the first write).
 */
export const writability = Effect.fn("Notes.writability")(function*(dir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  let current = path.resolve(dir)
  while (true) {
    const info = yield* Effect.result(fs.stat(current))
    if (info._tag === "Success") {
      if (info.success.type !== "Directory") return { _tag: "Blocked", at: current, problem: "not-a-folder" } satisfies Writability
      const access = yield* Effect.result(fs.access(current, { writable: true }))
      return access._tag === "Success"
        ? { _tag: "Writable" } satisfies Writability
        : { _tag: "Blocked", at: current, problem: "read-only" } satisfies Writability
    }
    // Missing (or below a file: ENOTDIR) means look one level up; a folder we may not enter stops here.
    if (info.failure.reason._tag === "PermissionDenied") return { _tag: "Blocked", at: current, problem: "not-accessible" } satisfies Writability
    const parent = path.dirname(current)
    if (parent === current) return { _tag: "Blocked", at: current, problem: "not-accessible" } satisfies Writability
    current = parent
  }
})

/** Judges an anchored folder: first that no link on its way leads out of its root (or to nothing), then `writability`. */
export const anchoredWritability = Effect.fn("Notes.anchoredWritability")(function*(anchored: AnchoredFolder) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const placement = yield* placeUnder({ fs, path }, anchored.base, anchored.segments).pipe(Effect.orElseSucceed(() => inside))
  if (placement._tag !== "Inside") {
    return {
      _tag: "Blocked",
      at: path.join(anchored.base, ...placement.link.split("/")),
      problem: placement._tag === "Outside" ? "link-outside" : "dangling-link",
      root: anchored.belongsTo
    } satisfies Writability
  }
  return yield* writability(path.join(anchored.base, ...anchored.segments))
})

/** Whether notes can be written: the notes root, then each of the five homes. Writes nothing. */
export const notesWritability = Effect.fn("Notes.notesWritability")(function*(identity: NotesIdentity) {
  const path = yield* Path.Path
  const rootWritability = yield* writability(identity.root)
  const homes = yield* Effect.forEach(Homes, (home) =>
    Effect.map(
      anchoredWritability(homeAnchor(identity, home, path.dirname)),
      (result): HomeWritability => ({ home, location: homeLocation(identity, home), writability: result })
    ))
  return { root: identity.root, rootWritability, homes } satisfies NotesWritability
})
