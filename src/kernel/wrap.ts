/** Characters after which a word too long for one line (a path) may break. */
const pathSeparators = new Set(["/", "\\"])

/** Terminal columns of one code point; the TUI passes its own measure (a wide character takes two). */
export type CharWidth = (char: string) => number

const widthOf = (points: ReadonlyArray<string>, charWidth: CharWidth): number => points.reduce((sum, point) => sum + charWidth(point), 0)

/** How many code points from the start fit in `room` columns (at least one, so a break always makes progress). */
const fitting = (points: ReadonlyArray<string>, room: number, charWidth: CharWidth): number => {
  let used = 0
  let count = 0
  while (count < points.length && used + charWidth(points[count]!) <= room) used += charWidth(points[count++]!)
  return count
}

/** Where a piece fitting in `room` columns ends: after its last path separator, or 0 when it has none. */
const separatorCut = (points: ReadonlyArray<string>, room: number, charWidth: CharWidth): number => {
  for (let cut = fitting(points, room, charWidth); cut > 1; cut--) if (pathSeparators.has(points[cut - 1]!)) return cut
  return 0
}

/** A word wider than `width`, in pieces that end at a path separator where one falls within the width. */
const breakWord = (points: ReadonlyArray<string>, width: number, charWidth: CharWidth): ReadonlyArray<string> => {
  const pieces: Array<string> = []
  let rest = points
  while (widthOf(rest, charWidth) > width) {
    const cut = separatorCut(rest, width, charWidth) || Math.max(1, fitting(rest, width, charWidth))
    pieces.push(rest.slice(0, cut).join(""))
    rest = rest.slice(cut)
  }
  return [...pieces, rest.join("")]
}

/**
 * One line of text in lines of at most `width` columns: broken at spaces,
 * and a word wider than the width (a path) after a path separator, so a path
 * is never cut inside a name when it need not be. A character wider than the
 * width alone takes a line of its own.
 */
export const wrapLine = (text: string, width: number, charWidth: CharWidth = () => 1): ReadonlyArray<string> => {
  const limit = Math.max(1, Math.floor(width))
  if (widthOf(Array.from(text), charWidth) <= limit) return [text]
  const lines: Array<string> = []
  // Undefined before the first word, so a line's leading spaces are kept.
  let current: Array<string> | undefined
  for (const word of text.split(" ")) {
    const points = Array.from(word)
    const joined = current === undefined ? points : [...current, " ", ...points]
    if (widthOf(joined, charWidth) <= limit) {
      current = joined
      continue
    }
    // A path too wide for any line starts beside the words before it, up to a separator.
    const head = current !== undefined && widthOf(points, charWidth) > limit
      ? separatorCut(points, limit - widthOf(current, charWidth) - 1, charWidth)
      : 0
    if (current !== undefined && (current.length > 0 || head > 0)) lines.push([...current, ...(head > 0 ? [" ", ...points.slice(0, head)] : [])].join(""))
    const pieces = breakWord(points.slice(head), limit, charWidth)
    lines.push(...pieces.slice(0, -1))
    current = Array.from(pieces.at(-1)!)
  }
  lines.push((current ?? []).join(""))
  return lines
}
