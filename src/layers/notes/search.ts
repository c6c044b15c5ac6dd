import { Effect, Option, PlatformError } from "effect"
import { formatAddress, type Home, homeOrder } from "../../domain/notes/address.ts"
import { parseNote } from "../../domain/notes/frontmatter.ts"
import { decodeSearchCursor, encodeSearchCursor } from "../../domain/notes/paging.ts"
import { codePointLength } from "../../domain/textWindow.ts"
import {
  InvalidNoteRequest,
  InvalidSearchPattern,
  NotesHomeUnavailable,
  type SearchHit,
  type SearchResult
} from "../../services/NotesStore.ts"
import { type DiskOps, describePlatformError, isNotFound, type NoteFile, readTexts, walkNotes } from "./disk.ts"

const HitTextLimit = 200

const homeUnavailable = (home: Home) => (error: PlatformError.PlatformError) =>
  new NotesHomeUnavailable({ home, reason: describePlatformError(error) })

type LineMatcher = (line: string) => boolean

const lineMatcher = (query: string, regex: boolean): Effect.Effect<{ readonly line: LineMatcher; readonly body: LineMatcher }, InvalidSearchPattern> => {
  if (!regex) {
    const needle = query.toLowerCase()
    const has = (text: string) => text.toLowerCase().includes(needle)
    return Effect.succeed({ line: has, body: has })
  }
  return Effect.try({
    try: () => new RegExp(query, "i"),
    catch: (error) => new InvalidSearchPattern({ pattern: query, reason: error instanceof Error ? error.message : String(error) })
  }).pipe(Effect.map((pattern) => ({ line: (text: string) => pattern.test(text), body: () => true })))
}

const clipLine = (line: string): string => {
  if (line.length <= HitTextLimit) return line
  const points = Array.from(line)
  return points.length <= HitTextLimit ? line : `${points.slice(0, HitTextLimit).join("")}…`
}

/** Matching lines of one body, after line `afterLine`. */
const hitsIn = (address: string, body: string, matcher: LineMatcher, afterLine: number, max: number): ReadonlyArray<SearchHit> => {
  const hits: Array<SearchHit> = []
  let offset = 0
  let line = 0
  let start = 0
  while (start <= body.length && hits.length < max) {
    const end = body.indexOf("\n", start)
    const stop = end === -1 ? body.length : end
    const text = body.slice(start, stop).replace(/\r$/, "")
    line++
    if (line > afterLine && matcher(text)) hits.push({ address, line, offset, text: clipLine(text) })
    if (end === -1) break
    offset += codePointLength(body.slice(start, stop)) + 1
    start = end + 1
  }
  return hits
}

interface SearchFile extends NoteFile {
  readonly home: Home
  readonly order: number
}

const compareFiles = (a: { readonly order: number; readonly relative: string }, b: { readonly order: number; readonly relative: string }) =>
  a.order - b.order || (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0)

const ReadBatch = 512

/** Matching lines in note order (home order, path), then line; stops reading once the page is full. */
export const searchNotes = (
  ops: DiskOps,
  homes: ReadonlyArray<{ readonly home: Home; readonly dir: string }>,
  request: { readonly query: string; readonly regex?: boolean | undefined; readonly cursor?: string | undefined; readonly limit: number }
): Effect.Effect<SearchResult, InvalidSearchPattern | InvalidNoteRequest> =>
  Effect.gen(function*() {
    const matcher = yield* lineMatcher(request.query, request.regex === true)
    const cursor = request.cursor === undefined ? undefined : Option.getOrUndefined(decodeSearchCursor(request.cursor))
    if (request.cursor !== undefined && cursor === undefined) {
      return yield* new InvalidNoteRequest({ address: "", message: "the cursor is not one notes_search returned; start again without a cursor" })
    }
    const walked = yield* Effect.forEach(homes, ({ home, dir }) =>
      Effect.result(walkNotes(ops, dir).pipe(
        Effect.map((files) => files.map((file): SearchFile => ({ ...file, home, order: homeOrder(home) }))),
        Effect.mapError(homeUnavailable(home))
      )), { concurrency: "unbounded" })
    const unavailable = walked.flatMap((result) => (result._tag === "Failure" ? [result.failure] : []))
    const files = walked
      .flatMap((result) => (result._tag === "Success" ? result.success : []))
      .filter((file) => cursor === undefined || compareFiles(file, { order: cursor.h, relative: cursor.p }) >= 0)
      .sort(compareFiles)
    const hits: Array<SearchHit & { readonly file: SearchFile }> = []
    const unreadable: Array<string> = []
    for (let batch = 0; batch < files.length && hits.length <= request.limit; batch += ReadBatch) {
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
        const body = parseNote(text).body
        if (!matcher.body(body)) continue
        const afterLine = cursor !== undefined && compareFiles(file, { order: cursor.h, relative: cursor.p }) === 0 ? cursor.l : 0
        for (const hit of hitsIn(address, body, matcher.line, afterLine, request.limit + 1 - hits.length)) hits.push({ ...hit, file })
      }
    }
    const page = hits.slice(0, request.limit)
    const last = page[page.length - 1]
    return {
      hits: page.map(({ file: _file, ...hit }) => hit),
      unreadable,
      unavailable,
      nextCursor: hits.length > request.limit && last !== undefined
        ? encodeSearchCursor({ h: last.file.order, p: last.file.relative, l: last.line })
        : undefined
    }
  })
