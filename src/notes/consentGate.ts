import { Effect, Option, Result, Schema } from "effect"
import { parseAddress } from "./address.ts"
import { changeDiff, decideChange, mutedLine, type NoteChange } from "./consent.ts"
import { applyEdits, describeEditRefusal } from "./edits.ts"
import { shownName } from "../kernel/names.ts"
import { NotesHomes } from "./NotesHomes.ts"
import { NoteByteLimit, type NoteState } from "./NotesStore.ts"
import { describeStoreFailure } from "./notesStoreFailure.ts"
import { NoteKeeper } from "./NoteKeeper.ts"
import { PiSession, type ShownLine } from "../kernel/PiSession.ts"
import { formatAddress, type Home, homeLabel } from "../kernel/homes.ts"
import { formatBytes } from "./snapshot.ts"
import { Thresholds } from "../settings/Thresholds.ts"

/** A change to a note the user's settings do not let the model make, or the user did not allow: the note keeps its text. */
export class ChangeRefused extends Schema.TaggedError<ChangeRefused>()("ChangeRefused", { message: Schema.String }) {}

/** What the model asks to do to a note, as the user reads it in the dialog. */
export type AskedChange =
  | { readonly kind: "write"; readonly content: string }
  | { readonly kind: "edit"; readonly edits: ReadonlyArray<{ readonly oldText: string; readonly newText: string }>; readonly renameTo?: string | undefined }
  | { readonly kind: "rename"; readonly renameTo: string }
  | { readonly kind: "retire" }

/**
 * What the gate let through: the change, with how to undo it when the user
 * allowed it (undefined when it needed no one's OK); or nothing to do, since
 * the change would leave the note's text as it is.
 */
export type GateOutcome =
  | {
    readonly _tag: "Go"
    readonly undo: string | undefined
    /** Allowed as a new note of a protected home: a note found there by the time the write holds its lock keeps its text. */
    readonly onlyNew: boolean
  }
  | { readonly _tag: "Unchanged"; readonly address: string }

const go: GateOutcome = { _tag: "Go", undo: undefined, onlyNew: false }

const verbOf: Readonly<Record<AskedChange["kind"], string>> = { write: "rewrite", edit: "edit", rename: "rename", retire: "retire" }

/** The text the change leaves, when it can be worked out from the text the gate saw; a rename or retire has none. */
const textAfter = (change: AskedChange, before: string): Result.Result<string | undefined, string> => {
  switch (change.kind) {
    case "write":
      return Result.succeed(change.content)
    case "edit": {
      const edited = applyEdits(before, change.edits)
      return Result.isFailure(edited) ? Result.fail(describeEditRefusal(edited.failure, change.edits.length)) : Result.succeed(edited.success)
    }
    default:
      return Result.succeed(undefined)
  }
}

/** The change as the user sees it: a diff of the text, or what happens to the note. */
const shownChange = (change: AskedChange, state: Extract<NoteState, { _tag: "Present" }>, after: string | undefined, address: string): ReadonlyArray<ShownLine> => {
  const renamed = change.kind === "rename" || change.kind === "edit" ? change.renameTo : undefined
  const tail = renamed === undefined ? [] : [mutedLine(`${shownName(address)} is renamed to ${shownName(renamed)}.`)]
  if (change.kind === "retire") return [mutedLine(`${shownName(address)} leaves the boot and notes_list for the wastebasket.`)]
  if (after === undefined) return tail
  if (state.body === undefined) {
    return [
      mutedLine(`Its text (${formatBytes(state.bytes)}) is too large or unreadable to show here; all of it is replaced by:`),
      ...changeDiff("", after).filter((line) => line.tone === "added" || line.tone === "muted"),
      ...tail
    ]
  }
  return [...changeDiff(state.body, after), ...tail]
}

/**
 * Keeps the note's text as it is now as a version before an allowed change:
 * a commit of that note when the note versions can make one, a copy in its
 * home's wastebasket otherwise. The sentence saying how to undo the change;
 * a change whose before cannot be kept is refused.
 */
const keepBefore = Effect.fnUntraced(function*(address: string, home: Home, tooLarge: boolean) {
  // The note versions are optional to the notes tools (a test's host may have none): then the wastebasket keeps it.
  // A note over the write limit could not be written back by the restore command, so its copy is the undo.
  const keeper = yield* Effect.serviceOption(NoteKeeper)
  const versioned = (keep: NoteKeeper["Service"]) =>
    keep.keepNote(address).pipe(
      Effect.map((hash) => Result.succeed(`To undo it: /pi-context notes restore ${address} ${hash}`)),
      Effect.catch((error) => Effect.succeed(Result.fail(error.message)))
    )
  const kept = tooLarge
    ? Result.fail(`it is over the ${formatBytes(NoteByteLimit)} the restore command can write back`)
    : Option.isNone(keeper)
    ? Result.fail("they are not running")
    : yield* versioned(keeper.value)
  if (Result.isSuccess(kept)) return kept.success
  const copied = yield* (yield* NotesHomes).keepCopy(address).pipe(
    Effect.mapError((error) =>
      new ChangeRefused({
        message: `${shownName(address)} keeps its text: before a change the user allowed, pi-context keeps the text it replaces, and could not ` +
          `(the note versions: ${kept.failure}; the wastebasket: ${describeStoreFailure(error).text}). Nothing was changed.`
      })
    )
  )
  return `Its text before is kept in ${homeLabel(home)}'s wastebasket, at ${copied.location} (not in the note versions: ${kept.failure}); to undo, copy it back.`
})

/**
 * Lets a change to the note at `address` through, asks the user for it, or
 * refuses it, as `pi-context.protectedHomes` and `readOnlyHomes` say.
 * Whether the note exists comes from its file, never from reading it; what
 * the gate cannot decide is refused. Where no user can answer, a change that
 * needs their OK is refused. An allowed change's before is kept first.
 */
export const gateChange = Effect.fnUntraced(function*(address: string, change: AskedChange) {
  const parsed = parseAddress(address, "read")
  // An address the store refuses is refused there, with its own words.
  if (Result.isFailure(parsed)) return go
  const target = change.kind === "rename" || (change.kind === "edit" && change.renameTo !== undefined)
    ? parseAddress(change.renameTo!, "write")
    : undefined
  const session = yield* PiSession
  // The policy's protection: a trusted project's settings add protected homes, never take one away.
  const policy = yield* (yield* Thresholds).policy
  const protection = { protectedHomes: policy.protectedHomes.value, readOnlyHomes: policy.readOnlyHomes.value }
  const home = parsed.success.home
  const shown = shownName(formatAddress(parsed.success))
  const request = (exists: boolean): NoteChange => ({
    home,
    exists,
    kind: change.kind,
    ...(target !== undefined && Result.isSuccess(target) ? { toHome: target.success.home } : {})
  })
  // Whether the note exists matters only in a protected home: elsewhere the decision is the same either way.
  const ifExists = decideChange(protection, request(true))
  if (ifExists._tag === "Allow") return go
  if (ifExists._tag === "Refuse") {
    return yield* new ChangeRefused({
      message: `${homeLabel(ifExists.home)} is read-only (pi-context.readOnlyHomes): notes there are the user's, and the model may not write them. ` +
        `${shown} is unchanged. Keep what you meant to write in this session's notes, or ask the user to change the setting.`
    })
  }
  const state = yield* (yield* NotesHomes).noteState(address).pipe(
    Effect.mapError((error) =>
      new ChangeRefused({
        message: `${homeLabel(home)} is protected (pi-context.protectedHomes), and pi-context could not tell whether ${shown} exists ` +
          `(${describeStoreFailure(error).text}), so the change is refused and nothing was changed. Try again once the note can be found, or add a new note instead.`
      })
    )
  )
  if (state._tag === "Absent") return { _tag: "Go", undo: undefined, onlyNew: true } as const
  if (change.kind === "edit" && state.body === undefined) {
    return yield* new ChangeRefused({
      message: `${shown} (${formatBytes(state.bytes)}) is too large or unreadable to edit, so it keeps its text. Read it in pages with notes_read, ` +
        `or ask the user to split it.`
    })
  }
  const after = textAfter(change, state.body ?? "")
  if (Result.isFailure(after)) return yield* new ChangeRefused({ message: `${shown} is unchanged: ${after.failure}` })
  const afterText = after.success
  const renames = target !== undefined
  if (!renames && afterText !== undefined && afterText === state.body) return { _tag: "Unchanged", address: shown } as const
  const answer = yield* session.askUser({
    title: `pi-context: allow the model to ${verbOf[change.kind]} ${shown}?`,
    message: `${shown} is in ${homeLabel(home)}, a protected home (pi-context.protectedHomes): its notes change only with your OK. ` +
      `Its text now is kept as a version first, so the change can be undone.`,
    lines: shownChange(change, state, afterText, formatAddress(parsed.success))
  })
  if (answer !== "yes") {
    return yield* new ChangeRefused({
      message: `${homeLabel(home)} is protected (pi-context.protectedHomes): ` +
        (answer === "no" ? "the user declined" : "no user could be asked to allow") +
        ` the change to ${shown}, which keeps its text. Add a new note there instead, or ask the user to allow the change ` +
        `(or to take ${homeLabel(home)} out of pi-context.protectedHomes).`
    })
  }
  const undo = yield* keepBefore(formatAddress(parsed.success), home, state.bytes > NoteByteLimit)
  yield* session.notify(`pi-context: you allowed the ${verbOf[change.kind]} of ${shown}. ${undo}`)
  return { _tag: "Go", undo, onlyNew: false } as const
})
