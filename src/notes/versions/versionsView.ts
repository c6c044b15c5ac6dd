import { plural } from "../../kernel/plural.ts"
import { describeRepoState, type RepoState } from "./repoState.ts"

/**
 * What the note versions say to the user: the notices their background
 * commits leave, the refusals of their commands and their doctor line. The
 * versions room decides; the sentences are here.
 */

/** A listing or a diff that ran while a commit was still running. */
export const stillCommitting = "\n(A commit of the notes is still running; this shows what was committed before it.)"

/** What a command that must take its turn at the repository says when a commit (the first of a large root takes seconds) holds it past the wait. */
export const stillBeingWritten =
  "pi-context: the note versions are still being written (a first commit of many notes takes a while); it goes on in the background: try again in a moment."

export const versionsOffNotice = (reason: string) => `pi-context: note versions are off (${reason}); notes work as before, without commits.`

export const versionsOff = (reason: string) => `pi-context: note versions are off (${reason}).`

export const firstCommitRunning = "pi-context: the first commit of the note versions is still running; try again in a moment."

export const noVersionsYet = "pi-context: no note versions yet; it starts at the end of the first window that writes a note."

export const noNotesYet = "pi-context: there are no notes yet."

export const ignoredByGitNotice = (rule: string | undefined, example: string) =>
  `pi-context: git ignores notes in the notes root (${rule ?? "an ignore rule"}, e.g. ${example}), ` +
  "so no version of them is ever committed; change that rule so it leaves the notes in."

export const commitFailedNotice = (detail: string) =>
  `pi-context: could not commit the note versions (${detail}); your notes are saved, only their versions are behind.`

export const commitFailed = (detail: string) => `pi-context: could not commit the notes (${detail}).`

/** The doctor's line on the note versions, by the state of the notes root's repository. */
export const versionsDoctorLine = (
  state:
    | { readonly _tag: "Busy" | "NotYet" | "Unknown" }
    | { readonly _tag: "Off"; readonly reason: string }
    | { readonly _tag: "Ready"; readonly owned: boolean; readonly inProject: boolean; readonly waiting: string | undefined; readonly ignored: string | undefined }
): { readonly ok: boolean; readonly text: string } => {
  switch (state._tag) {
    case "Busy":
      return { ok: true, text: "note versions: a commit of the notes is being written; /pi-context doctor shows its state once it is done" }
    case "NotYet":
      return { ok: true, text: "note versions: starts at the end of the first window that writes a note" }
    case "Unknown":
      return { ok: false, text: "note versions: could not be checked (git did not answer in the notes root); run doctor again, or check git there with git status" }
    case "Off":
      return { ok: false, text: `note versions: off (${state.reason}); notes work without commits; to have them, make git work in the notes root (install git, or repair its repository), then restart Pi` }
    case "Ready": {
      const kind = state.owned ? "pi-context's git repository in the notes root" : "your git repository, used as it is"
      const inProject = state.inProject ? "; the in-project project home is committed with the project" : ""
      const waiting = state.waiting === undefined ? "" : `; waiting: the repository is ${state.waiting}, the notes are committed once it is back on a branch`
      const ignored = state.ignored === undefined ? "" : `; ${state.ignored}`
      return { ok: waiting === "" && ignored === "", text: `note versions: ${kind}${inProject}${waiting}${ignored}` }
    }
  }
}

/** Why a restore or a tidy cannot commit now. */
export const notOnBranch = (state: Exclude<RepoState, { readonly _tag: "OnBranch" }>) =>
  `the notes root's git repository is ${describeRepoState(state)}; nothing is committed there until it is back on a branch.`

export const notSavedBeforeRestore = (detail: string) =>
  `pi-context: could not commit the notes as they are before restoring (${detail}); nothing was restored.`

export const restoreWaitsForBranch = (why: string) => `pi-context: ${why} Nothing was restored; run the restore again then.`

export const restoreNotCommitted = (what: string, detail: string) => `pi-context: restored ${what}, but could not commit it (${detail}).`

export const restoreWaiting = (what: string, why: string) => `pi-context: restored ${what}, but ${why}`

export const restoreFailed = (what: string, detail: string) => `pi-context: could not restore ${what}: ${detail}`

export const noVersionIn = (address: string, hash: string) =>
  `pi-context: ${address} has no version in commit ${hash.slice(0, 12)}; /pi-context notes versions ${address} lists the commits that hold it.`

/** What a restore did: `files` restored and committed as `head`, or nothing (the notes already matched). */
export const restoredText = (restore: {
  readonly what: string
  readonly note: boolean
  readonly hash: string
  readonly files: number | undefined
  readonly head: string | undefined
}): string => {
  const at = restore.hash.slice(0, 12)
  if (restore.files === undefined) return `${restore.what} already matches ${restore.note ? `its version in ${at}` : at}; nothing to commit.`
  return restore.note
    ? `Restored ${restore.what} to its version in ${at}; the restore is commit ${restore.head}.`
    : `Restored ${restore.what} to ${at} (${plural(restore.files, "note")}); the restore is commit ${restore.head}.`
}

/** What a restore that outlasts the command's wait (many notes, or a commit ahead of it) says at once. */
export const restoreGoesOn = (what: string) =>
  `pi-context: the restore of ${what} takes longer than a moment (many notes, or a commit ahead of it); it goes on in the background, and you are told when it is done.`

/** What the user is told when that restore is done: its sentence, its refusal, or where to look. */
export const restoredLater = (what: string, outcome: { readonly _tag: "Done" | "Refused"; readonly text: string } | { readonly _tag: "Failed" }) =>
  outcome._tag === "Done" ? `pi-context: ${outcome.text}` : outcome._tag === "Refused" ? outcome.text : `pi-context: the restore of ${what} failed; /pi-context trace says why.`

/** The in-project project home has no versions here: the project's own git keeps them. */
export const inProjectHome = "pi-context: the project home is kept in the project (.pi/notes) and committed with its code; " +
  "its history is the project's own: git log -- .pi/notes"

export const notAnAddressOrHome = (target: string, reason: string) => `pi-context: "${target}" is not a note address or a home: ${reason}.`

export const noSuchCommit = (commit: string) => `pi-context: there is no commit "${commit}" in the note versions; /pi-context notes versions lists them.`

export const notACommit = (commit: string) => `pi-context: "${commit}" is not a commit; give a hash from /pi-context notes versions.`
