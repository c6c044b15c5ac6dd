import { Context, Effect, Layer, type Option, Schema } from "effect"
import { NoteKeeper } from "../NoteKeeper.ts"
import type { CommitReason } from "./versions.ts"
import type { SessionNoteChanges } from "./windowChanges.ts"
import type { PiSession } from "../../kernel/PiSession.ts"

export type { SessionNoteChanges } from "./windowChanges.ts"

/** One `git` run that could not be started or did not succeed. */
export class GitFailed extends Schema.TaggedError<GitFailed>()("GitFailed", {
  command: Schema.String,
  /** `missing` when there is no git to run; `failed` for a non-zero exit or a time-out. */
  reason: Schema.Literals(["missing", "failed"]),
  detail: Schema.String
}) {
  override get message(): string {
    return this.reason === "missing" ? "git is not installed: no git on PATH" : `git ${this.command}: ${this.detail}`
  }
}

export interface GitResult {
  readonly stdout: string
  /** The output as git wrote it, when the runner keeps it: blobs are sized in bytes, and a note may not be UTF-8. */
  readonly stdoutBytes?: Uint8Array
}

/**
 * How many notes a run writes or reads (an `add`, a `commit` or a `restore` of a whole home): its time
 * limit grows with them, so a home of 20,000 notes on a busy machine is not cut where a window's few are.
 */
export interface GitRunOptions {
  readonly files?: number
}

/** Runs `git args` in `cwd`, with `stdin` when given; the seam tests replace. */
export type GitRunner = (cwd: string, args: ReadonlyArray<string>, stdin?: string, options?: GitRunOptions) => Effect.Effect<GitResult, GitFailed>

/** What a history command could not do, as the sentence the user reads. */
export class VersionsUnavailable extends Schema.TaggedError<VersionsUnavailable>()("VersionsUnavailable", {
  message: Schema.String
}) {}

/**
 * The notes root as a git repository: each window's changed notes are
 * committed when the Window room says it ended (its boundary, the session's
 * end), off the hooks' critical path, one commit at a time per root.
 */
export class NotesVersions extends Context.Service<NotesVersions, {
  /** Waits for the commits forked so far, at most `timeoutMs`: the session's end waits no longer for its last commit. */
  readonly awaitCommits: (timeoutMs: number) => Effect.Effect<void>
  /** `/pi-context notes versions [address|@home]`. */
  readonly history: (target: string | undefined) => Effect.Effect<string, VersionsUnavailable, PiSession>
  /** `/pi-context notes diff <commit> [address]`. */
  readonly diff: (commit: string, address: string | undefined) => Effect.Effect<string, VersionsUnavailable, PiSession>
  /**
   * `/pi-context notes restore <address|@home|all> <commit>`: a note, a home or
   * every home back to that commit's version; the restore is itself a commit.
   */
  readonly restore: (target: string, commit: string) => Effect.Effect<string, VersionsUnavailable, PiSession>
  /**
   * Commits what changed in the homes now, creating the repository if need be
   * (tidy's before and after); the short hash of HEAD afterwards.
   */
  readonly commitNow: (reason: CommitReason) => Effect.Effect<string, VersionsUnavailable, PiSession>
  /**
   * Commits one note as it is now (edits by hand included), before a change
   * the user allowed, so `/pi-context notes restore` can bring it back; the
   * short hash of a commit holding that text (HEAD when it held it already).
   */
  readonly keepNote: (address: string) => Effect.Effect<string, VersionsUnavailable, PiSession>
  /**
   * This session's window commits (the newest 200), by window id, once the
   * commits in flight have landed or `waitForCommitsMs` has passed, with the
   * windows whose commit is still queued or running; none when the history
   * is off, git is missing or there is no repository yet, and when git does
   * not answer within `logBudgetMs` (default 2 s). For the windows view and
   * `history_windows` only, never a hook.
   */
  readonly sessionChanges: (options: { readonly waitForCommitsMs: number; readonly logBudgetMs?: number }) => Effect.Effect<Option.Option<SessionNoteChanges>, never, PiSession>
  /** Whether the note versions are there to browse: the notes root's repository is open (not off, not yet made). */
  readonly offered: Effect.Effect<boolean, never, PiSession>
  /** One line for `/pi-context doctor`. */
  readonly describe: Effect.Effect<{ readonly ok: boolean; readonly text: string }, never, PiSession>
}>()("pi-context/NotesVersions") {}

/** The note versions as the keeper of a protected note's text before a change the user allowed. */
export const noteKeeperLayer = Layer.effect(NoteKeeper, Effect.map(Effect.service(NotesVersions), (versions) => NoteKeeper.of({ keepNote: versions.keepNote })))
