import { Effect } from "effect"
import { Homes } from "../../domain/notes/address.ts"
import { parseNote } from "../../domain/notes/frontmatter.ts"
import { homeDirectory, type NotesIdentity } from "../../domain/notes/identity.ts"
import type { NoteText } from "../../services/NotesStore.ts"
import { type DiskOps, readTexts, statPaths, walkNotes } from "./disk.ts"

/** Every readable note of the five homes, with its body; an unreadable home or note is left out (doctor reports homes). */
export const readAllNotes = (ops: DiskOps, identity: NotesIdentity): Effect.Effect<ReadonlyArray<NoteText>> =>
  Effect.map(
    Effect.forEach(Homes, (home) =>
      Effect.gen(function*() {
        const files = yield* walkNotes(ops, homeDirectory(identity, home, ops.path.join)).pipe(Effect.orElseSucceed(() => []))
        const absolute = files.map((file) => file.absolute)
        const [kinds, texts] = yield* Effect.all([statPaths(absolute).pipe(Effect.orElseSucceed(() => [])), readTexts(absolute)])
        return files.flatMap((file, i): ReadonlyArray<NoteText> => {
          const kind = kinds[i]
          const text = texts[i]
          return kind?._tag === "File" && typeof text === "string"
            ? [{ home, path: file.relative, body: parseNote(text).body, updatedMs: kind.updatedMs }]
            : []
        })
      }), { concurrency: "unbounded" }),
    (perHome) => perHome.flat()
  )
