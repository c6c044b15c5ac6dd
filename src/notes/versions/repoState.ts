/**
 * Whether the notes' repository is in a state pi-context must not commit
 * in: a merge, rebase, cherry-pick, revert or bisect the user has started,
 * or a detached HEAD. A commit then would conclude or join the user's
 * operation, or land on no branch; the history waits until the repository
 * is back on a branch.
 */

/** What git keeps in its folder while an operation is under way, and the operation's name. */
export const OperationMarkers: ReadonlyArray<{ readonly file: string; readonly operation: string }> = [
  { file: "rebase-merge", operation: "a rebase" },
  { file: "rebase-apply", operation: "a rebase" },
  { file: "MERGE_HEAD", operation: "a merge" },
  { file: "CHERRY_PICK_HEAD", operation: "a cherry-pick" },
  { file: "REVERT_HEAD", operation: "a revert" },
  { file: "BISECT_LOG", operation: "a bisect" }
]

export type RepoState =
  | { readonly _tag: "OnBranch" }
  | { readonly _tag: "Busy"; readonly operation: string }
  | { readonly _tag: "Detached" }

/** From the content of `HEAD` in the git folder and which of `OperationMarkers` are there. */
export const repoState = (head: string, present: ReadonlyArray<string>): RepoState => {
  const marker = OperationMarkers.find((candidate) => present.includes(candidate.file))
  if (marker !== undefined) return { _tag: "Busy", operation: marker.operation }
  return head.startsWith("ref: ") ? { _tag: "OnBranch" } : { _tag: "Detached" }
}

/** `in the middle of a merge`, `on a detached HEAD`. */
export const describeRepoState = (state: Exclude<RepoState, { readonly _tag: "OnBranch" }>): string =>
  state._tag === "Busy" ? `in the middle of ${state.operation}` : "on a detached HEAD"

/** The notice, once per such state: nothing is lost, the commit only waits. */
export const waitingNotice = (state: Exclude<RepoState, { readonly _tag: "OnBranch" }>): string =>
  `pi-context: the notes root's git repository is ${describeRepoState(state)}, so no note versions are committed there; ` +
  "your notes are saved, and they are committed at the next window's end once the repository is back on a branch."

/** One line for doctor on notes a `.gitignore` keeps out of the history. */
export const ignoredNotesText = (ignored: { readonly count: number; readonly rule: string | undefined; readonly example: string }): string =>
  `${ignored.count === 1 ? "1 note is" : `${ignored.count} notes are`} ignored by git ` +
  `(${ignored.rule === undefined ? "an ignore rule" : ignored.rule}, e.g. ${ignored.example}) and never committed; ` +
  "change that rule so it leaves the notes in"
