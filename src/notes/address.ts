import { Result } from "effect"
import type { Home, NoteAddress } from "../kernel/homes.ts"

export const AddressByteLimit = 512

/**
 * Bytes (UTF-8) one folder or file name of an address may take on disk,
 * `.md` included. File systems allow 255; the rest is kept for the suffixes
 * the store adds beside a note (`.lock`, `.lock.tmp-<token>`, `.tmp-<token>`).
 */
export const SegmentByteLimit = 200

/** Why an address is refused: `name_too_long` is its own code, since the fix differs. */
export interface AddressRefusal {
  readonly code: "invalid_address" | "name_too_long"
  readonly reason: string
}

const prefixedHomes: ReadonlyArray<Home> = ["project", "user", "agent", "model"]

const encoder = new TextEncoder()

/** C0 and C1 controls, DEL, and the line and paragraph separators. */
const controlCharacter = /[\p{Cc}\u2028\u2029]/u
/** Format characters (Cf): bidi embeddings, overrides and isolates, marks, zero-width spaces and joiners, BOM, word joiner. */
const formatCharacter = /\p{Cf}/u
/** A UTF-16 surrogate without its pair: no file name can hold it. */
const loneSurrogate = /[\uD800-\uDFFF]/u

const bidiControls = new Set([0x200e, 0x200f, 0x061c, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069])

const describeCodePoint = (char: string): string =>
  `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`

const formatRefusal = (char: string, position: number): string =>
  bidiControls.has(char.codePointAt(0)!)
    ? `the address contains the bidirectional control ${describeCodePoint(char)} at position ${position}, which can make a name display differently from what it is; remove it`
    : `the address contains the invisible format character ${describeCodePoint(char)} at position ${position} (a zero-width or formatting mark), so two names that look the same could differ; remove it`

/** Git's own folder (any case: macOS and Windows fold it): never part of a note's address, never walked. */
export const isGitFolder = (name: string): boolean => name.toLowerCase() === ".git"

const withMarkdownExtension = (path: string): string => (path.endsWith(".md") ? path : `${path}.md`)

const ellipsized = (segment: string): string => {
  const points = Array.from(segment)
  return points.length <= 24 ? segment : `${points.slice(0, 12).join("")}…${points.slice(-8).join("")}`
}

/**
 * What an address is checked for: a write creates files beside the note
 * (lock, temporary), so its names must leave room for their suffixes; a read
 * only opens what is there, which may be a longer name written by hand.
 */
export type AddressUse = "read" | "write"

const segmentRefusal = (segment: string, index: number, last: boolean, use: AddressUse): AddressRefusal | undefined => {
  const invalid = (reason: string): AddressRefusal => ({ code: "invalid_address", reason })
  if (segment === "") return invalid(`segment ${index + 1} is empty; write folders as "a/b", without "//" or a trailing "/"`)
  if (segment === ".") return invalid(`segment ${index + 1} is "."; leave it out`)
  if (segment === "..") return invalid(`segment ${index + 1} is ".."; an address cannot leave its home`)
  if (isGitFolder(segment)) return invalid(`segment ${index + 1} is "${segment}", git's own folder; nothing under it is a note, so name another folder`)
  if (use === "read") return undefined
  const onDisk = last ? withMarkdownExtension(segment) : segment
  const bytes = encoder.encode(onDisk).length
  if (bytes > SegmentByteLimit) {
    return {
      code: "name_too_long",
      reason: `${last ? "the note name" : `folder name ${index + 1}`} "${ellipsized(segment)}" is ${bytes} bytes in UTF-8${last && onDisk !== segment ? " with .md" : ""}; each name in an address may be at most ${SegmentByteLimit} bytes (file systems allow 255, and the store needs the rest for its lock and temporary files). Shorten the name, or split it into folders such as "topic/part"`
    }
  }
  return undefined
}

/**
 * The canonical form of an address as typed: Unicode NFC, so a name typed
 * with decomposed accents (NFD) and its composed form are one note.
 */
export const normalizeAddress = (raw: string): string => raw.normalize("NFC")

/** Why `raw` is not a note address (with its code), or undefined when it is one. */
export const refuseAddress = (input: string, use: AddressUse = "write"): AddressRefusal | undefined => {
  const invalid = (reason: string): AddressRefusal => ({ code: "invalid_address", reason })
  if (input.length === 0) return invalid("the address is empty; name a note such as \"plan\" or \"@project/decisions\"")
  const surrogate = loneSurrogate.exec(input)
  if (surrogate !== null) return invalid(`the address contains an unpaired UTF-16 surrogate at position ${surrogate.index}; no file name can hold it`)
  const raw = normalizeAddress(input)
  const bytes = encoder.encode(raw).length
  if (bytes > AddressByteLimit) return invalid(`the address is ${bytes} bytes long; the limit is ${AddressByteLimit} bytes`)
  const control = controlCharacter.exec(raw)
  if (control !== null) {
    return invalid(`the address contains the control character ${describeCodePoint(control[0])} at position ${control.index}`)
  }
  const format = formatCharacter.exec(raw)
  if (format !== null) return invalid(formatRefusal(format[0], format.index))
  if (raw.includes("\\")) return invalid("the address contains a backslash; separate folders with \"/\"")
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) {
    return invalid("the address is absolute; addresses are relative to a home, such as \"plan\" or \"@project/plan\"")
  }
  let rest = raw
  if (raw.startsWith("@")) {
    const slash = raw.indexOf("/")
    const head = slash === -1 ? raw : raw.slice(0, slash)
    const home = head.slice(1)
    if (!prefixedHomes.includes(home as Home)) {
      return invalid(`unknown home "${head}"; use @project, @user, @agent or @model, or no prefix for this session`)
    }
    if (slash === -1 || slash === raw.length - 1) return invalid(`the address names the home ${head} but no note; add a name such as "${head}/MAP"`)
    rest = raw.slice(slash + 1)
  }
  const segments = rest.split("/")
  for (let index = 0; index < segments.length; index++) {
    const refusal = segmentRefusal(segments[index]!, index, index === segments.length - 1, use)
    if (refusal !== undefined) return refusal
  }
  return undefined
}

/** Splits an address already known to be valid (and already in NFC). */
const toNoteAddress = (raw: string): NoteAddress => {
  if (!raw.startsWith("@")) return { home: "session", path: withMarkdownExtension(raw) }
  const slash = raw.indexOf("/")
  return { home: raw.slice(1, slash) as Home, path: withMarkdownExtension(raw.slice(slash + 1)) }
}

/** Parses an address into its NFC home and path, failing with the refusal. */
export const parseAddress = (raw: string, use: AddressUse = "write"): Result.Result<NoteAddress, AddressRefusal> => {
  const refusal = refuseAddress(raw, use)
  return refusal === undefined ? Result.succeed(toNoteAddress(normalizeAddress(raw))) : Result.fail(refusal)
}

/**
 * The home and path of an address this store formatted (a listing row, a
 * search hit), as it is on disk, without checking it again: a note written
 * by hand may have a name a write would refuse.
 */
export const splitFormattedAddress = (address: string): NoteAddress => {
  const slash = address.indexOf("/")
  const home = address.startsWith("@") && slash !== -1 ? address.slice(1, slash) : undefined
  return home !== undefined && prefixedHomes.includes(home as Home)
    ? { home: home as Home, path: address.slice(slash + 1) }
    : { home: "session", path: address }
}
