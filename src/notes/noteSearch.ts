import { Effect, Option, Result } from "effect"
import { parseNote } from "./frontmatter.ts"
import { decodeSearchCursor, encodeSearchCursor } from "./paging.ts"
import { compileQuery, type InvalidPattern, type TextPattern } from "../kernel/patterns.ts"
import type { ScanDeadline } from "../kernel/scanDeadline.ts"
import { codePointLength } from "../kernel/textWindow.ts"
import { InvalidNoteRequest, type SearchHit, type SearchResult } from "./NotesStore.ts"
import { CurrentScanDeadline } from "../kernel/CurrentScanDeadline.ts"
import { engineFor } from "../kernel/regexEngine.ts"
import { type DiskOps, isNotFound, type NoteFile, readTexts, walkNotes } from "./disk.ts"
import { homeUnavailable } from "./errors.ts"
import { formatAddress, type Home, homeOrder } from "../kernel/homes.ts"

const HitTextLimit = 200

const clipLine = (line: string): string => {
  if (line.length <= HitTextLimit) return line
  const points = Array.from(line)
  return points.length <= HitTextLimit ? line : `${points.slice(0, HitTextLimit).join("")}…`
}

/** The hits of one body after line `afterLine`, and the last line handled when the budget stopped the scan. */
const hitsIn = (
  address: string,
  body: string,
  pattern: TextPattern,
  afterLine: number,
  max: number,
  budget: ScanDeadline
): { readonly hits: ReadonlyArray<SearchHit>; readonly stoppedAfter: number | undefined } => {
  const hits: Array<SearchHit> = []
  const scan = pattern.scanner(body, true)
  // `line` is the number of the line that starts at `start`, `offset` its code-point offset.
  let line = 1
  let start = 0
  let offset = 0
  const nextLine = (): boolean => {
    const newline = body.indexOf("\n", start)
    if (newline === -1) return false
    offset += codePointLength(body.slice(start, newline)) + 1
    start = newline + 1
    line++
    return true
  }
  /** Moves to the line holding UTF-16 index `index`. */
  const moveTo = (index: number) => {
    for (let newline = body.indexOf("\n", start); newline !== -1 && newline < index; newline = body.indexOf("\n", start)) nextLine()
  }
  while (line <= afterLine) if (!nextLine()) return { hits, stoppedAfter: undefined }
  while (hits.length < max) {
    const step = scan(start, budget)
    if (step._tag === "End") break
    if (step._tag === "Stopped") {
      moveTo(step.at)
      return { hits, stoppedAfter: line - 1 }
    }
    moveTo(step.index)
    const newline = body.indexOf("\n", start)
    const text = body.slice(start, newline === -1 ? body.length : newline).replace(/\r$/, "")
    hits.push({ address, line, offset, text: clipLine(text) })
    if (!nextLine()) break
  }
  return { hits, stoppedAfter: undefined }
}

interface SearchFile extends NoteFile {
  readonly home: Home
  readonly order: number
}

const compareFiles = (a: { readonly order: number; readonly relative: string }, b: { readonly order: number; readonly relative: string }) =>
  a.order - b.order || (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0)

const ReadBatch = 512

/**
 * Matching lines in note order (home order, path), then line; stops reading
 * once the page is full, or once the call's scan budget is spent (with a
 * cursor that continues from there).
 */
export const searchNotes = (
  ops: DiskOps,
  homes: ReadonlyArray<{ readonly home: Home; readonly dir: string }>,
  request: { readonly query: string; readonly regex?: boolean | undefined; readonly cursor?: string | undefined; readonly limit: number }
): Effect.Effect<SearchResult, InvalidPattern | InvalidNoteRequest> =>
  Effect.gen(function*() {
    const compiled = compileQuery(request.query, request.regex === true, yield* engineFor(request.regex))
    if (Result.isFailure(compiled)) return yield* compiled.failure
    const pattern = compiled.success
    const cursor = request.cursor === undefined ? undefined : Option.getOrUndefined(decodeSearchCursor(request.cursor))
    if (request.cursor !== undefined && cursor === undefined) {
      return yield* new InvalidNoteRequest({ address: "", message: "the cursor is not one notes_search returned; start again without a cursor" })
    }
    const [walked, unavailable] = yield* Effect.partition(homes, ({ home, dir }) =>
      walkNotes(ops, dir).pipe(
        Effect.map((files) => files.map((file): SearchFile => ({ ...file, home, order: homeOrder(home) }))),
        Effect.mapError(homeUnavailable(home))
      ), { concurrency: "unbounded" })
    const files = walked
      .flat()
      .filter((file) => cursor === undefined || compareFiles(file, { order: cursor.h, relative: cursor.p }) >= 0)
      .sort(compareFiles)
    const hits: Array<SearchHit & { readonly file: SearchFile }> = []
    const unreadable: Array<string> = []
    const budget = (yield* CurrentScanDeadline)()
    let stoppedAt: { readonly file: SearchFile; readonly line: number } | undefined
    let searched = 0
    for (let batch = 0; batch < files.length && hits.length <= request.limit && stoppedAt === undefined; batch += ReadBatch) {
      const chunk = files.slice(batch, batch + ReadBatch)
      const texts = yield* readTexts(chunk.map((file) => file.absolute))
      for (let i = 0; i < chunk.length && hits.length <= request.limit; i++) {
        const file = chunk[i]!
        const text = texts[i]!
        const address = formatAddress({ home: file.home, path: file.relative })
        if (typeof text !== "string") {
          if (!isNotFound(text)) unreadable.push(address)
          continue
        }
        const afterLine = cursor !== undefined && compareFiles(file, { order: cursor.h, relative: cursor.p }) === 0 ? cursor.l : 0
        if (searched > 0 && budget.spent()) {
          stoppedAt = { file, line: afterLine }
          break
        }
        searched++
        const found = hitsIn(address, parseNote(text).body, pattern, afterLine, request.limit + 1 - hits.length, budget)
        for (const hit of found.hits) hits.push({ ...hit, file })
        if (found.stoppedAfter !== undefined) {
          stoppedAt = { file, line: found.stoppedAfter }
          break
        }
      }
    }
    const page = hits.slice(0, request.limit)
    const last = page[page.length - 1]
    const nextCursor = hits.length > request.limit && last !== undefined
      ? encodeSearchCursor({ h: last.file.order, p: last.file.relative, l: last.line })
      : stoppedAt === undefined
      ? undefined
      : encodeSearchCursor({ h: stoppedAt.file.order, p: stoppedAt.file.relative, l: stoppedAt.line })
    return {
      hits: page.map(({ file: _file, ...hit }) => hit),
      unreadable,
      unavailable,
      nextCursor,
      stoppedEarly: hits.length <= request.limit && stoppedAt !== undefined
    }
  })
