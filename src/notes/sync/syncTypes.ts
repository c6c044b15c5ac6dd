import type { SyncableHome } from "../../settings/sync.ts"

/**
 * The shapes notes sync is built from: what the user configured
 * (`pi-context.sync`) and what each remote's last pull and push did. Shared by
 * the settings check, the sync engine, `/pi-context notes sync` and doctor.
 */

/** Why a pull or push failed, each with its own fix in doctor. */
export type SyncFailureKind =
  /** The remote does not exist or cannot be reached (no network, no such path or host). */
  | "unreachable"
  /** The remote refused the credentials (or there were none). */
  | "auth"
  /** Cut at its time budget. */
  | "timeout"
  /** The remote's branch no longer contains what was pulled before (a force-push): nothing is pushed over it. */
  | "diverged"
  | "git-missing"
  | "other"

export type SyncOutcome =
  | {
    readonly _tag: "Ok"
    readonly atMs: number
    /** Short and already redacted: `up to date`, `3 notes pulled`, `2 commits pushed`. */
    readonly detail: string
  }
  | {
    readonly _tag: "Failed"
    readonly atMs: number
    readonly kind: SyncFailureKind
    /** Git's own words, redacted and with the machine's paths hidden. */
    readonly detail: string
  }

/** The other side's text of a note both sides changed, kept beside the note until the user resolves it. */
export interface ConflictCopy {
  readonly home: SyncableHome
  /** The note's path in its home (`plan.md`). */
  readonly note: string
  /** The copy's path in the same home (`plan.conflict-20261201T211503Z.md`). */
  readonly copy: string
  readonly atMs: number
}

/** What one remote's syncing has done so far, for the view and doctor. */
export interface RemoteSyncState {
  /** The remote with any credentials redacted: safe to show. */
  readonly remote: string
  readonly branch: string
  readonly homes: ReadonlyArray<SyncableHome>
  readonly lastPull: SyncOutcome | undefined
  readonly lastPush: SyncOutcome | undefined
  /** Local commits not on the remote, remote commits not merged here; undefined until a fetch succeeded. */
  readonly ahead: number | undefined
  readonly behind: number | undefined
  /** Conflict copies still present beside their notes. */
  readonly conflicts: ReadonlyArray<ConflictCopy>
  /** The remote's history was rewritten: the local branch is kept and saved under `backupRef`. */
  readonly diverged: { readonly backupRef: string; readonly atMs: number } | undefined
  /** A push failed or was cut and is retried at the next commit. */
  readonly pushPending: boolean
}
