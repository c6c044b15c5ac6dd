import { Effect, Option, PlatformError } from "effect"
import { type Frontmatter, parseNote } from "./frontmatter.ts"
import { codePointLength, type TextWindow, windowCollector } from "../kernel/textWindow.ts"
import type { PageRequest } from "./NotesStore.ts"
import { type DiskOps, readTextChunks } from "./disk.ts"

/**
 * Reads of notes too large to hold whole (written by hand past the write
 * limit): the frontmatter from the file's head, the body by window, in
 * chunks, so the model can page through such a note and split it.
 */

/** The frontmatter block is looked for in this many leading bytes. */
const HeadBytes = 64 * 1024

const headOf = (ops: DiskOps, file: string) =>
  Effect.gen(function*() {
    const handle = yield* ops.fs.open(file, { flag: "r" })
    const bytes = Option.getOrElse(yield* handle.readAlloc(HeadBytes, { position: 0n }), () => new Uint8Array())
    const head = new TextDecoder("utf-8").decode(bytes, { stream: true })
    const note = parseNote(head)
    // Without a block closed within the head, all of the file is body.
    return { handle, frontmatter: note.frontmatter, bodyStart: head.length - note.body.length }
  })

/** The frontmatter of a large note, from its head only. */
export const readLargeFrontmatter = (ops: DiskOps, file: string): Effect.Effect<Frontmatter, PlatformError.PlatformError> =>
  Effect.scoped(Effect.map(headOf(ops, file), (head) => head.frontmatter))

/** Hands `consume` the decoded text after the first `skip` UTF-16 units. */
const skipping = (skip: number, consume: (text: string) => void) => {
  let left = skip
  return (text: string): void => {
    if (left >= text.length) {
      left -= text.length
      return
    }
    const rest = left === 0 ? text : text.slice(left)
    left = 0
    consume(rest)
  }
}

/** A window of a large note's body; every pass reads the one version that was opened. */
export const readLargePage = (
  ops: DiskOps,
  file: string,
  page: PageRequest
): Effect.Effect<{ readonly window: TextWindow; readonly frontmatter: Frontmatter }, PlatformError.PlatformError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const { handle, frontmatter, bodyStart } = yield* headOf(ops, file)
      let total: number | undefined
      if (page.offset < 0) {
        let counted = 0
        yield* readTextChunks(handle, skipping(bodyStart, (text) => (counted += codePointLength(text))))
        total = counted
      }
      const collector = windowCollector(page.offset, page.limit, page.maxBytes, total)
      yield* readTextChunks(handle, skipping(bodyStart, collector.push))
      return { window: collector.finish(), frontmatter }
    })
  )
