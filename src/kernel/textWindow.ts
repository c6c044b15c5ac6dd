/**
 * Windows over text measured in code points, so a page never splits a
 * surrogate pair. Shared by `notes_read` and `history_read`.
 */
export interface TextWindow {
  readonly text: string
  /** Offset (code points) of the first character returned. */
  readonly offset: number
  /** Total length of the source in code points. */
  readonly total: number
  /** Where the next page starts, or undefined when this page reaches the end. */
  readonly nextOffset: number | undefined
}

/** UTF-16 units of the code point at `at`: 2 for a surrogate pair, else 1 (a lone surrogate counts as one). */
const unitsAt = (text: string, at: number): 1 | 2 => {
  const unit = text.charCodeAt(at)
  if (unit < 0xd800 || unit > 0xdbff || at + 1 >= text.length) return 1
  const next = text.charCodeAt(at + 1)
  return next >= 0xdc00 && next <= 0xdfff ? 2 : 1
}

/** Code points of `text` from the UTF-16 index `from`. */
export const codePointLength = (text: string, from = 0): number => {
  let count = 0
  for (let i = from; i < text.length; i += unitsAt(text, i)) count++
  return count
}

/**
 * A window of at most `limit` code points starting at `offset`, and at most
 * `maxBytes` UTF-8 bytes, so a page that must fit a bound is cut here, where
 * `nextOffset` still says where the cut was. A negative offset counts from
 * the end (-100 = the last 100 code points). Offsets past the end give an
 * empty window with the total, never an error.
 */
export const textWindow = (text: string, offset: number, limit: number, maxBytes: number = Number.POSITIVE_INFINITY): TextWindow => {
  const collector = windowCollector(offset, limit, maxBytes, offset < 0 ? codePointLength(text) : undefined)
  collector.push(text)
  return collector.finish()
}

/**
 * The same window taken over text that arrives in pieces (a note too large
 * to hold whole): `push` each piece in order, then `finish`. Only the window
 * is kept, so memory is bounded by the page, whatever the text's size. A
 * negative `offset` needs `total`, from a first counting pass.
 */
export const windowCollector = (offset: number, limit: number, maxBytes: number = Number.POSITIVE_INFINITY, total?: number) => {
  const start = offset >= 0 ? offset : Math.max(0, (total ?? 0) + offset)
  const parts: Array<string> = []
  let index = 0
  let bytes = 0
  let end = start
  let full = limit <= 0
  return {
    push: (piece: string): void => {
      if (full || index + piece.length < start) {
        // A piece wholly before the window (or after it is full) is only counted.
        index += codePointLength(piece)
        return
      }
      let at = 0
      for (; at < piece.length && index < start; index++) at += unitsAt(piece, at)
      // The window's part of the piece, sliced once.
      const from = at
      while (at < piece.length) {
        const units = unitsAt(piece, at)
        const code = piece.charCodeAt(at)
        // A lone surrogate is encoded as U+FFFD: 3 bytes.
        const size = units === 2 ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3
        if (end - start >= limit || bytes + size > maxBytes) {
          full = true
          break
        }
        bytes += size
        end++
        index++
        at += units
      }
      if (at > from) parts.push(piece.slice(from, at))
      // What follows a full window is only counted.
      index += codePointLength(piece, at)
    },
    finish: (): TextWindow => {
      const clamped = Math.min(start, index)
      return { text: parts.join(""), offset: clamped, total: index, nextOffset: Math.max(end, clamped) < index ? Math.max(end, clamped) : undefined }
    }
  }
}

/** Code-point offset of the UTF-16 index `index` in `text`. */
export const codePointOffsetOf = (text: string, index: number): number => codePointLength(text.slice(0, index))
