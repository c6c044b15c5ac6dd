import { Result, Schema, SchemaTransformation } from "effect"

/** The five note homes, in the order the boot and listings show them. */
export const Homes = ["session", "project", "user", "agent", "model"] as const
export type Home = (typeof Homes)[number]

export const homeOrder = (home: Home): number => Homes.indexOf(home)

/** A valid note address: its home and a `/`-separated path that always ends in `.md`. */
export interface NoteAddress {
  readonly home: Home
  readonly path: string
}

export const AddressByteLimit = 512

const prefixedHomes: ReadonlyArray<Home> = ["project", "user", "agent", "model"]

const encoder = new TextEncoder()

/** How the model names a home: `session`, or `@home` for the others. */
export const homeLabel = (home: Home): string => (home === "session" ? "session" : `@${home}`)

/** How the model writes an address: no prefix for the session, `@home/` for the others. */
export const formatAddress = (address: NoteAddress): string =>
  address.home === "session" ? address.path : `@${address.home}/${address.path}`

const controlCharacter = /[\u0000-\u001f\u007f]/

const describeCodePoint = (char: string): string =>
  `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`

const segmentRefusal = (segment: string, index: number): string | undefined => {
  if (segment === "") return `segment ${index + 1} is empty; write folders as "a/b", without "//" or a trailing "/"`
  if (segment === ".") return `segment ${index + 1} is "."; leave it out`
  if (segment === "..") return `segment ${index + 1} is ".."; an address cannot leave its home`
  return undefined
}

/** Why `raw` is not a note address, or undefined when it is one. */
export const addressRefusal = (raw: string): string | undefined => {
  if (raw.length === 0) return "the address is empty; name a note such as \"plan\" or \"@project/decisions\""
  const bytes = encoder.encode(raw).length
  if (bytes > AddressByteLimit) return `the address is ${bytes} bytes long; the limit is ${AddressByteLimit} bytes`
  const control = controlCharacter.exec(raw)
  if (control !== null) {
    return `the address contains the control character ${describeCodePoint(control[0])} at position ${control.index}`
  }
  if (raw.includes("\\")) return "the address contains a backslash; separate folders with \"/\""
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) {
    return "the address is absolute; addresses are relative to a home, such as \"plan\" or \"@project/plan\""
  }
  let rest = raw
  if (raw.startsWith("@")) {
    const slash = raw.indexOf("/")
    const head = slash === -1 ? raw : raw.slice(0, slash)
    const home = head.slice(1)
    if (!prefixedHomes.includes(home as Home)) {
      return `unknown home "${head}"; use @project, @user, @agent or @model, or no prefix for this session`
    }
    if (slash === -1 || slash === raw.length - 1) return `the address names the home ${head} but no note; add a name such as "${head}/MAP"`
    rest = raw.slice(slash + 1)
  }
  const segments = rest.split("/")
  for (let index = 0; index < segments.length; index++) {
    const refusal = segmentRefusal(segments[index]!, index)
    if (refusal !== undefined) return refusal
  }
  return undefined
}

const withMarkdownExtension = (path: string): string => (path.endsWith(".md") ? path : `${path}.md`)

/** Splits an address already known to be valid. */
const toNoteAddress = (raw: string): NoteAddress => {
  if (!raw.startsWith("@")) return { home: "session", path: withMarkdownExtension(raw) }
  const slash = raw.indexOf("/")
  return { home: raw.slice(1, slash) as Home, path: withMarkdownExtension(raw.slice(slash + 1)) }
}

/** A string that is a valid note address; each refusal carries its own message. */
export const AddressString = Schema.String.check(
  Schema.makeFilter((raw: string) => addressRefusal(raw), { expected: "a note address" }, true)
)

const NoteAddressStruct = Schema.Struct({
  home: Schema.Literals(Homes),
  path: Schema.String
})

/** Decodes an address string into its home and `.md` path; encodes back to the canonical form. */
export const NoteAddressFromString = AddressString.pipe(
  Schema.decodeTo(
    NoteAddressStruct,
    SchemaTransformation.transform({
      decode: toNoteAddress,
      encode: formatAddress
    })
  )
)

/** Parses an address, failing with the refusal sentence. */
export const parseAddress = (raw: string): Result.Result<NoteAddress, string> => {
  const refusal = addressRefusal(raw)
  return refusal === undefined ? Result.succeed(toNoteAddress(raw)) : Result.fail(refusal)
}

/** Accepts "session", "project", "@project", "@project/" and the like; undefined for anything else. */
export const parseHome = (raw: string): Home | undefined => {
  const name = raw.replace(/^@/, "").replace(/\/$/, "")
  return (Homes as ReadonlyArray<string>).includes(name) ? (name as Home) : undefined
}
