import { Effect, Result, Schema } from "effect"
import { parseAddress } from "./address.ts"
import { changeDiff, decideChange, type NoteChange } from "./consent.ts"
import { shownName } from "../kernel/names.ts"
import { NotesHomes } from "./NotesHomes.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { formatAddress, homeLabel } from "../kernel/homes.ts"
import { Thresholds } from "../settings/Thresholds.ts"

/** A change to a note the user's settings do not let the model make, or the user did not allow: the note keeps its text. */
export class ChangeRefused extends Schema.TaggedError<ChangeRefused>()("ChangeRefused", { message: Schema.String }) {}

/** What the model asks to do to a note, as the user reads it in the confirm dialog. */
export type AskedChange =
  | { readonly kind: "write"; readonly content: string }
  | { readonly kind: "edit"; readonly edits: ReadonlyArray<{ readonly oldText: string; readonly newText: string }>; readonly renameTo?: string | undefined }
  | { readonly kind: "rename"; readonly renameTo: string }
  | { readonly kind: "retire" }

const verbOf: Readonly<Record<AskedChange["kind"], string>> = { write: "rewrite", edit: "edit", rename: "rename", retire: "retire" }

/** The change shown to the user: a diff of the text, or what happens to the note. */
const shownChange = (change: AskedChange, before: string, address: string): string => {
  switch (change.kind) {
    case "write":
      return changeDiff(before, change.content)
    case "edit":
      return [
        ...change.edits.map((edit) => changeDiff(edit.oldText, edit.newText)),
        ...(change.renameTo === undefined ? [] : [`renamed to ${shownName(change.renameTo)}`])
      ].join("\n…\n")
    case "rename":
      return `${shownName(address)} → ${shownName(change.renameTo)}`
    case "retire":
      return `${shownName(address)} leaves the boot and notes_list for the wastebasket (it stays in the note versions).`
  }
}

/**
 * Lets a change to the note at `address` through, asks the user for it, or
 * refuses it, as `pi-context.protectedHomes` and `readOnlyHomes` say. Where
 * no user can answer, a change that needs their OK is refused.
 */
export const gateChange = Effect.fnUntraced(function*(address: string, change: AskedChange) {
  const parsed = parseAddress(address, "read")
  // An address the store refuses is refused there, with its own words.
  if (Result.isFailure(parsed)) return
  const target = change.kind === "rename" || (change.kind === "edit" && change.renameTo !== undefined)
    ? parseAddress(change.renameTo!, "write")
    : undefined
  const session = yield* PiSession
  // The policy's protection: a trusted project's settings add protected homes, never take one away.
  const policy = yield* (yield* Thresholds).policy
  const protection = { protectedHomes: policy.protectedHomes.value, readOnlyHomes: policy.readOnlyHomes.value }
  const existing = yield* (yield* NotesHomes).read(address).pipe(Effect.option)
  const request: NoteChange = {
    home: parsed.success.home,
    exists: existing._tag === "Some",
    kind: change.kind,
    ...(target !== undefined && Result.isSuccess(target) ? { toHome: target.success.home } : {})
  }
  const decision = decideChange(protection, request)
  const shown = shownName(formatAddress(parsed.success))
  if (decision._tag === "Allow") return
  if (decision._tag === "Refuse") {
    return yield* new ChangeRefused({
      message: `${homeLabel(decision.home)} is read-only (pi-context.readOnlyHomes): notes there are the user's, and the model may not write them. ` +
        `${shown} is unchanged. Keep what you meant to write in this session's notes, or ask the user to change the setting.`
    })
  }
  const before = existing._tag === "Some" ? existing.value.body : ""
  const answer = yield* session.askUser(
    `pi-context: allow the model to ${verbOf[change.kind]} ${shown}?`,
    `${shown} is in ${homeLabel(decision.home)}, a protected home (pi-context.protectedHomes): its notes change only with your OK.\n\n${shownChange(change, before, address)}`
  )
  if (answer === "yes") return
  return yield* new ChangeRefused({
    message: `${homeLabel(decision.home)} is protected (pi-context.protectedHomes): ` +
      (answer === "no" ? "the user declined" : "no user could be asked to allow") +
      ` the change to ${shown}, which keeps its text. Add a new note there instead, or ask the user to allow the change ` +
      `(or to take ${homeLabel(decision.home)} out of pi-context.protectedHomes).`
  })
})
