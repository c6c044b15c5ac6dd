import { Effect } from "effect"
import { NotesHomes } from "./NotesHomes.ts"
import type { Writability } from "./NotesStore.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Notices } from "../kernel/Notices.ts"

/** Whether notes can be written: the notes root, then each of the five homes. Writes nothing. */
export const notesWritability = NotesHomes.use((homes) => homes.writability())

/** What is wrong, relative to the folder the user knows (`the notes root`, `the project home`). */
export const blockedReason = (blocked: Extract<Writability, { _tag: "Blocked" }>, dir: string, name: string): string => {
  const self = blocked.at === dir
  switch (blocked.problem) {
    case "not-a-folder":
      return self ? `${name} is a file, not a folder` : `${name} is below a file, not a folder`
    case "read-only":
      return self ? `${name} is read-only` : `${name} is inside a read-only folder`
    case "not-accessible":
      return `${name} is inside a folder pi-context may not open`
    case "link-outside":
      return `${name} is reached through a symbolic link that leads outside ${blocked.root ?? "the folder it belongs to"}`
    case "dangling-link":
      return `${name} is reached through a symbolic link to a folder that does not exist`
  }
}

/** How to clear what is in the way of a folder pi-context writes notes in. */
export const blockedFix = (blocked: Extract<Writability, { _tag: "Blocked" }>): string => {
  switch (blocked.problem) {
    case "not-a-folder":
      return `move that file out of the way (${blocked.at})`
    case "read-only":
    case "not-accessible":
      return `fix the permissions of ${blocked.at}`
    case "link-outside":
    case "dangling-link":
      return `replace the symbolic link ${blocked.at} with a folder`
  }
}

export const notesRootFix = "point pi-context.notesRoot (or PI_CONTEXT_NOTES_ROOT) at a folder you can write, or fix its permissions"

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** The key of the notice that the notes root cannot be used: told once, by whichever finds it first (a boot, the start-up check). */
export const RootBlockedNotice = "notes-root-blocked"

/** The notes root cannot be used: what is wrong and the fix, without its path (the doctor shows it). */
export const rootBlockedNotice = (blocked: Extract<Writability, { _tag: "Blocked" }>, root: string): string =>
  `pi-context cannot write notes: ${blockedReason(blocked, root, "the notes root")}. ${capitalized(notesRootFix)}; /pi-context doctor shows where it is.`

/**
 * At session start: one notice when notes cannot be written, so the user
 * hears of it before the model's first note fails. Names no paths; the
 * doctor shows them.
 */
export const reportNotesWritability = Effect.gen(function*() {
  const session = yield* PiSession
  const { root, rootWritability, homes } = yield* notesWritability
  if (rootWritability._tag === "Blocked") {
    // The boot that found no home readable has told it already, first, before its own incomplete index.
    if (yield* (yield* Notices).wasTold(RootBlockedNotice)) return
    return yield* session.notify(rootBlockedNotice(rootWritability, root), "warning")
  }
  const blocked = homes.filter((home) => home.writability._tag === "Blocked")
  if (blocked.length === 0) return
  yield* session.notify(
    `pi-context cannot write notes in the ${blocked.map((home) => home.home).join(", ")} ${blocked.length === 1 ? "home" : "homes"} ` +
      `(a file, a read-only folder or a symbolic link that leads out of its folder is in the way). /pi-context doctor shows where.`,
    "warning"
  )
})
