import { Effect, type PlatformError, Result } from "effect"
import { type AddressUse, parseAddress } from "./address.ts"
import { type AnchoredFolder, homeAnchor, homeDirectory, type NotesIdentity } from "./identity.ts"
import { describeMisplaced, type Misplaced, misplacedAction, type Placement } from "./placement.ts"
import { InvalidAddress, NoteNotFound, NotesHomeUnavailable, NotesIoError } from "./NotesStore.ts"
import { placeUnder } from "./contain.ts"
import { type DiskOps, isNotFound } from "./disk.ts"
import { type FailurePlace, notesIoError } from "./errors.ts"
import { formatAddress, type Home, type NoteAddress } from "../kernel/homes.ts"

/** A note as the store finds it on disk: its address, how the model names it, its home's folder and its file. */
export interface Located {
  readonly address: NoteAddress
  readonly shown: string
  readonly homeDir: string
  readonly file: string
  /** The home's folder as the root it must stay inside and its path below it. */
  readonly anchor: AnchoredFolder
}

/** A folder the store would write that leads out of its root (or nowhere), as the error of that note. */
export const misplacedError = (place: FailurePlace, placement: Misplaced, belongsTo: string, operation = "write"): NotesIoError =>
  new NotesIoError({
    address: place.shown,
    home: place.address.home,
    errno: placement._tag === "Outside" ? "LINK_OUTSIDE" : "LINK_DANGLING",
    permanent: true,
    reason: `could not ${operation} ${place.shown}: ${describeMisplaced(placement, belongsTo)}`,
    action: misplacedAction(placement)
  })

/** Finding notes on disk and keeping every path the store touches inside the folder it belongs to. */
export const makeLocator = (ops: DiskOps) => {
  const { fs, path } = ops

  const homeDir = (identity: NotesIdentity, home: Home): string => homeDirectory(identity, home, path.join)

  const ioErrorAt = (place: FailurePlace, operation: string) => notesIoError(path, place, operation)

  /**
   * The file of each segment as it is on disk: a name stored in another
   * Unicode normalization (NFD, as macOS and some editors write) is the
   * same note as its NFC address. Only names with accents are looked up.
   */
  const onDisk = (dir: string, segments: ReadonlyArray<string>): Effect.Effect<string, PlatformError.PlatformError> =>
    Effect.gen(function*() {
      let current = dir
      for (const segment of segments) {
        const exact = path.join(current, segment)
        if (segment === segment.normalize("NFD") || (yield* fs.exists(exact))) {
          current = exact
          continue
        }
        const names = yield* fs.readDirectory(current).pipe(Effect.catchIf(isNotFound, () => Effect.succeed([] as ReadonlyArray<string>)))
        const stored = names.find((name) => name !== segment && name.normalize("NFC") === segment)
        current = stored === undefined ? exact : path.join(current, stored)
      }
      return current
    })

  const locate = (identity: NotesIdentity, raw: string, use: AddressUse = "write"): Effect.Effect<Located, InvalidAddress | NotesIoError> =>
    Result.match(parseAddress(raw, use), {
      onFailure: (refusal) => Effect.fail(new InvalidAddress({ address: raw, reason: refusal.reason, code: refusal.code })),
      onSuccess: (address) => {
        const dir = homeDir(identity, address.home)
        const shown = formatAddress(address)
        const anchor = homeAnchor(identity, address.home, path.dirname)
        return onDisk(dir, address.path.split("/")).pipe(
          Effect.map((file): Located => ({ address, shown, homeDir: dir, file, anchor })),
          Effect.mapError(ioErrorAt({ address, shown, homeDir: dir }, "find"))
        )
      }
    })

  /** Where an anchored folder leads. */
  const placeAnchored = (anchored: AnchoredFolder): Effect.Effect<Placement, PlatformError.PlatformError> =>
    placeUnder(ops, anchored.base, anchored.segments)

  /** A home whose folder leads outside its root (or nowhere), as that home's unavailability; reads of it stop here. */
  const checkHome = (identity: NotesIdentity, home: Home): Effect.Effect<void, NotesHomeUnavailable> => {
    const anchored = homeAnchor(identity, home, path.dirname)
    return placeAnchored(anchored).pipe(
      Effect.mapError((error) => new NotesHomeUnavailable({ home, reason: `${error.reason._tag} in ${error.reason.method}` })),
      Effect.flatMap((placement) =>
        placement._tag === "Inside"
          ? Effect.void
          : Effect.fail(new NotesHomeUnavailable({ home, reason: describeMisplaced(placement, anchored.belongsTo), fix: misplacedAction(placement) }))
      )
    )
  }

  /** The first misplaced step of a note: its home against its root, then its own path against its home. */
  const misplacedStep = Effect.fnUntraced(function*(located: Located) {
    const home = yield* placeAnchored(located.anchor).pipe(Effect.mapError(ioErrorAt(located, "open")))
    if (home._tag !== "Inside") return { placement: home, within: "root" as const }
    const segments = path.relative(located.homeDir, located.file).split(path.sep)
    const note = yield* placeUnder(ops, located.homeDir, segments).pipe(Effect.mapError(ioErrorAt(located, "open")))
    return { placement: note, within: "home" as const }
  })

  /**
   * Refuses a note whose home leads out of its root, or whose own path leads
   * out of its home, or through a link to nothing (creating below it cannot
   * succeed, and trying again would not help).
   */
  const ensureContained = Effect.fnUntraced(function*(located: Located, operation: "read" | "write" = "write") {
    const { placement, within } = yield* misplacedStep(located)
    if (placement._tag === "Inside") return
    if (within === "home" && placement._tag === "Outside") {
      return yield* new InvalidAddress({
        address: located.shown,
        reason: `the note resolves outside its home ("${placement.link}" is a symbolic link that leads out); notes must stay inside their home`
      })
    }
    return yield* misplacedError(located, placement, within === "home" ? "its home" : located.anchor.belongsTo, operation)
  })

  /** The same for a read, where a link to nothing on the way means there is no such note. */
  const ensureReadable = (located: Located) =>
    Effect.flatMap(misplacedStep(located), ({ placement, within }): Effect.Effect<void, NoteNotFound | InvalidAddress | NotesIoError> =>
      placement._tag === "Dangling" && within === "home" ? Effect.fail(new NoteNotFound({ address: located.shown })) : ensureContained(located, "read")
    )

  return { homeDir, locate, checkHome, ensureContained, ensureReadable, ioErrorAt }
}
