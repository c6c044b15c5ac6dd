import type { Path, PlatformError } from "effect"
import { classifyIoFailure } from "./ioFailure.ts"
import { describePlatformError } from "./disk.ts"
import { NotesHomeUnavailable, NotesIoError } from "./NotesStore.ts"
import { type Home, homePrefix, type NoteAddress } from "../kernel/homes.ts"

/** What a failure is told about: the note (or folder) as the model names it, and where its home is on disk. */
export interface FailurePlace {
  readonly address: NoteAddress
  /** The address as shown to the model. */
  readonly shown: string
  readonly homeDir: string
}

/** Where a failure happened when it was a folder of the address (`at @project/a`), never a path of the machine. */
const placeOf = (path: Path.Path, place: FailurePlace, failing: unknown): string => {
  if (typeof failing !== "string") return ""
  if (failing === place.homeDir) return " (at the home's folder)"
  if (!failing.startsWith(place.homeDir + path.sep)) return " (at a folder above the home)"
  const relative = failing.slice(place.homeDir.length + 1).split(path.sep).join("/")
  // The note itself, or a lock or temporary file beside it: the address already says where.
  return place.address.path.startsWith(`${relative}/`) ? ` (at ${homePrefix(place.address.home)}${relative})` : ""
}

/** A home that could not be read, as a failure naming it. */
export const homeUnavailable = (home: Home) => (error: PlatformError.PlatformError): NotesHomeUnavailable =>
  new NotesHomeUnavailable({ home, reason: describePlatformError(error) })

/** A platform error at `place`, as an error naming its address and home; permanent errors say so. */
export const notesIoError = (path: Path.Path, place: FailurePlace, operation: string) => (error: PlatformError.PlatformError): NotesIoError => {
  const code = (error.reason.cause as { readonly code?: unknown } | undefined)?.code
  const errno = typeof code === "string" ? code : error.reason._tag
  const failure = classifyIoFailure(typeof code === "string" ? code : undefined)
  const home = place.address.home === "session" ? "session" : `@${place.address.home}`
  const failing = "pathOrDescriptor" in error.reason ? error.reason.pathOrDescriptor : undefined
  return new NotesIoError({
    address: place.shown,
    home: place.address.home,
    errno,
    permanent: failure.permanent,
    reason: `could not ${operation} ${place.shown} in the ${home} home: ${failure.explanation} (${errno})${placeOf(path, place, failing)}`,
    action: failure.action
  })
}
