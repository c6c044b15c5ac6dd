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

/** Code points of `text`. Each element is one code point (1 or 2 UTF-16 units). */
export const codePoints = (text: string): ReadonlyArray<string> => Array.from(text)

export const codePointLength = (text: string): number => {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
    }
    count++
  }
  return count
}

/**
 * A window of `limit` code points starting at `offset`. A negative offset
 * counts from the end (-100 = the last 100 code points). Offsets past the
 * end give an empty window with the total, never an error.
 */
export const textWindow = (text: string, offset: number, limit: number): TextWindow => {
  const points = codePoints(text)
  const total = points.length
  const start = offset < 0 ? Math.max(0, total + offset) : Math.min(offset, total)
  const end = Math.min(total, start + Math.max(0, limit))
  return {
    text: points.slice(start, end).join(""),
    offset: start,
    total,
    nextOffset: end < total ? end : undefined
  }
}

/** Code-point offset of the UTF-16 index `index` in `text`. */
export const codePointOffsetOf = (text: string, index: number): number => codePointLength(text.slice(0, index))
