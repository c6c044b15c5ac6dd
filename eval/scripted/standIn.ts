/**
 * The scripted agent's variants: how it behaves where a real model could
 * behave either way. The scripted suite runs the default; the sensitivity
 * table runs each variant on every arm alike, to show how much of an arm's
 * figure is the stand-in's habit rather than the arm's.
 */

export interface StandIn {
  /** How it changes a file that exists: `edit` (what Pi's prompt asks for) or `write` the whole file again. */
  readonly changes: "edit" | "write"
  /** Whether it restates what each result taught it in its reply ("Learned:"), so that any memory of the reply keeps it. */
  readonly restates: boolean
  /** The chance that a checkpoint note or a summary it writes loses one fact (0: lossless). */
  readonly loss: number
}

export const defaultStandIn: StandIn = { changes: "edit", restates: true, loss: 0 }

/** The variant's short name: `default`, or what differs from it (`write`, `silent`, `loss=0.3`). */
export const standInName = (standIn: StandIn = defaultStandIn): string => {
  const parts = [
    ...(standIn.changes !== defaultStandIn.changes ? [standIn.changes] : []),
    ...(standIn.restates !== defaultStandIn.restates ? [standIn.restates ? "restating" : "silent"] : []),
    ...(standIn.loss !== defaultStandIn.loss ? [`loss=${standIn.loss}`] : [])
  ]
  return parts.length === 0 ? "default" : parts.join(",")
}

/** `--stand-in edit|write,restating|silent,loss=P` (any of them, comma-separated; the rest default). */
export const parseStandIn = (value: string): StandIn => {
  let standIn: StandIn = defaultStandIn
  for (const part of value.split(",").map((item) => item.trim()).filter((item) => item !== "")) {
    if (part === "edit" || part === "write") standIn = { ...standIn, changes: part }
    else if (part === "restating" || part === "silent") standIn = { ...standIn, restates: part === "restating" }
    else if (part === "default") standIn = defaultStandIn
    else if (/^loss=(0(\.\d+)?|1(\.0+)?)$/.test(part)) standIn = { ...standIn, loss: Number(part.slice(5)) }
    else throw new Error(`--stand-in takes edit or write, restating or silent, and loss=P (P from 0 to 1), comma-separated; got ${part}`)
  }
  return standIn
}

/** A number in [0, 1) from a text, the same on every machine: the lossy variant's draw, a function of what is written. */
export const drawOf = (text: string): number => {
  let h = 0x811c9dc5
  for (let index = 0; index < text.length; index++) h = Math.imul(h ^ text.charCodeAt(index), 0x01000193)
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296
}

/**
 * The facts a lossy memory keeps: with chance `loss`, one of them (drawn from
 * what is written) is gone. Pure: the same facts and text lose the same fact.
 */
export const lossyFacts = (facts: ReadonlyMap<string, string>, loss: number, salt: string): Map<string, string> => {
  const kept = new Map(facts)
  if (loss <= 0 || kept.size === 0) return kept
  const text = `${salt}\n${[...facts].map(([key, value]) => `${key}=${value}`).join("\n")}`
  if (drawOf(text) >= loss) return kept
  const keys = [...kept.keys()]
  kept.delete(keys[Math.floor(drawOf(`${text}\nwhich`) * keys.length)]!)
  return kept
}

/** One replacement of the `edit` tool: exact text of the original and what replaces it. */
export interface Replacement {
  readonly oldText: string
  readonly newText: string
}

const linesOf = (text: string): Array<string> => text.match(/[^\n]*\n|[^\n]+$/g) ?? []

const occurrences = (text: string, part: string): number => {
  let count = 0
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) count++
  return count
}

type Segment = { readonly same: true; readonly lines: ReadonlyArray<string> } | { readonly same: false; readonly before: ReadonlyArray<string>; readonly after: ReadonlyArray<string> }

/** The line diff of two texts (longest common subsequence), as runs of unchanged and changed lines. */
const segmentsOf = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): ReadonlyArray<Segment> => {
  const common: Array<Array<number>> = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!)
  const segments: Array<Segment> = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      const from = i
      while (i < a.length && j < b.length && a[i] === b[j]) (i++, j++)
      segments.push({ same: true, lines: a.slice(from, i) })
      continue
    }
    const [i0, j0] = [i, j]
    while ((i < a.length || j < b.length) && !(i < a.length && j < b.length && a[i] === b[j])) {
      if (j < b.length && (i >= a.length || common[i]![j + 1]! >= common[i + 1]![j]!)) j++
      else i++
    }
    segments.push({ same: false, before: a.slice(i0, i), after: b.slice(j0, j) })
  }
  return segments
}

/**
 * The edits that turn `before` into `after`, as a careful model makes them:
 * each changed run of lines with just enough unchanged lines around it to be
 * unique in the file (and not empty), runs whose context meets merged.
 * Undefined when nothing changes.
 */
export const editsBetween = (before: string, after: string): ReadonlyArray<Replacement> | undefined => {
  if (before === after) return undefined
  const segments = segmentsOf(linesOf(before), linesOf(after))
  const lines = (index: number) => {
    const segment = segments[index]
    return segment?.same === true ? segment.lines : []
  }
  // A hunk: changed segments first..last (with the unchanged ones between), `lead` lines of context before, `trail` after.
  interface Hunk { first: number; last: number; lead: number; trail: number }
  const hunks: Array<Hunk> = segments.flatMap((segment, index) => (segment.same ? [] : [{ first: index, last: index, lead: 0, trail: 0 }]))
  const side = (hunk: Hunk, which: "before" | "after") => {
    const lead = lines(hunk.first - 1)
    const inner = segments.slice(hunk.first, hunk.last + 1).flatMap((segment) => (segment.same ? segment.lines : segment[which]))
    return [...lead.slice(lead.length - hunk.lead), ...inner, ...lines(hunk.last + 1).slice(0, hunk.trail)].join("")
  }
  const settled = (hunk: Hunk) => {
    const oldText = side(hunk, "before")
    return oldText !== "" && occurrences(before, oldText) === 1
  }
  for (let index = 0; index < hunks.length; index++) {
    const hunk = hunks[index]!
    while (!settled(hunk)) {
      const canLead = hunk.lead < lines(hunk.first - 1).length
      const canTrail = hunk.trail < lines(hunk.last + 1).length
      if (!canLead && !canTrail) {
        // Context used up on both sides: take in the next changed run (or, at the end, the one before).
        const next = hunks[index + 1]
        const previous = hunks[index - 1]
        if (next !== undefined) {
          hunk.last = next.last
          hunk.trail = next.trail
          hunks.splice(index + 1, 1)
        } else if (previous !== undefined) {
          previous.last = hunk.last
          previous.trail = hunk.trail
          hunks.splice(index, 1)
          index -= 2
          break
        } else break
        continue
      }
      if (canLead) hunk.lead++
      if (canTrail && !settled(hunk)) hunk.trail++
    }
  }
  // Hunks whose context meets or overlaps become one: Pi's edit refuses overlapping replacements.
  const merged: Array<Hunk> = []
  for (const hunk of hunks) {
    const last = merged.at(-1)
    if (last !== undefined && last.last + 2 === hunk.first && last.trail + hunk.lead >= lines(hunk.first - 1).length) merged[merged.length - 1] = { first: last.first, last: hunk.last, lead: last.lead, trail: hunk.trail }
    else merged.push(hunk)
  }
  return merged.map((hunk) => ({ oldText: side(hunk, "before"), newText: side(hunk, "after") }))
}

/** `before` with `edits` applied (each matched against the original, as Pi's edit tool does). */
export const applyEdits = (before: string, edits: ReadonlyArray<Replacement>): string => {
  const placed = edits.map((edit) => ({ ...edit, at: before.indexOf(edit.oldText) })).sort((x, y) => x.at - y.at)
  let out = ""
  let from = 0
  for (const edit of placed) {
    out += before.slice(from, edit.at) + edit.newText
    from = edit.at + edit.oldText.length
  }
  return out + before.slice(from)
}
