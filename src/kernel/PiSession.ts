import { Context, type Effect, type Option } from "effect"
import type { BranchEntry, RawEntry } from "./entries.ts"
import type { ReportData, StatusTone } from "./report.ts"
import type { WindowUsage } from "./facts.ts"

export type NoticeLevel = "info" | "warning" | "error"

export interface ModelInfo {
  readonly provider: string
  readonly id: string
  readonly contextWindow: number
  /** Its price in dollars per million input tokens, from Pi's model catalog, when it has one. */
  readonly inputPrice?: number
}

/** One line of what a question shows the user, with its part in a change: Pi's theme colours each part. */
export interface ShownLine {
  readonly tone: "context" | "removed" | "added" | "muted"
  readonly text: string
}

/** A question to the user: a title, a sentence, and the lines of what it is about (a diff). */
export interface UserQuestion {
  readonly title: string
  readonly message: string
  readonly lines: ReadonlyArray<ShownLine>
}

/** A hidden or visible message appended to the session as a `custom_message` entry. */
export interface CustomMessageDraft {
  readonly customType: string
  readonly content: string
  readonly display: boolean
  readonly details?: unknown
}

/**
 * The only port to Pi. One value per Pi event: it wraps that event's `ctx`,
 * so services never hold a Pi context beyond the call that received it.
 */
export class PiSession extends Context.Service<PiSession, {
  readonly sessionId: string
  /** The parent session's id, read from the parent file's header, when this session is a fork. */
  readonly parentSessionId: Effect.Effect<string | undefined>
  readonly cwd: string
  /** Pi's agent directory (`PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
  readonly agentDir: string
  /** Every entry of the session in append order, across all branches. */
  readonly entries: Effect.Effect<ReadonlyArray<RawEntry>>
  /** The active branch, root to leaf, as raw entries. */
  readonly rawBranch: Effect.Effect<ReadonlyArray<RawEntry>>
  /** The active branch, root to leaf, classified. Foreign entries are values, never a throw. */
  readonly branch: Effect.Effect<ReadonlyArray<BranchEntry>>
  /**
   * The tail of the active branch, root to leaf, starting at the last entry
   * that satisfies `isStart` (inclusive), or the whole branch if none does.
   * Walks back from the leaf, so it costs the tail's length, not the session's.
   */
  readonly branchTail: (isStart: (entry: RawEntry) => boolean) => Effect.Effect<ReadonlyArray<RawEntry>>
  /** The branch from the root to entry `id` (inclusive), for tree navigation targets. */
  readonly rawBranchAt: (id: string) => Effect.Effect<ReadonlyArray<RawEntry>>
  readonly leafId: Effect.Effect<string | null>
  /** Pi's own estimate for the next request, uncorrected: read it through the Window service. */
  readonly contextUsage: Effect.Effect<Option.Option<WindowUsage>>
  readonly model: Effect.Effect<Option.Option<ModelInfo>>
  /** Pi's effective merged settings (global + trusted project). */
  readonly settings: Effect.Effect<Readonly<Record<string, unknown>>>
  /** Whether Pi trusts this project, so its `.pi/settings.json` applies. */
  readonly isProjectTrusted: Effect.Effect<boolean>
  /** No agent run is active (a prompt still in its input hooks has not started one). */
  readonly isIdle: Effect.Effect<boolean>
  /** Whether steering or follow-up messages are queued for the active run. */
  readonly hasQueuedMessages: Effect.Effect<boolean>
  readonly appendCustomEntry: (customType: string, data: unknown) => Effect.Effect<void>
  /**
   * Leaves entries of the active branch out of Pi's own context with context
   * edits, appended now (while idle, or inside a boundary hook), a bounded
   * batch per write, yielding to the event loop between batches: Pi then
   * counts its context without them; a Pi without context edits keeps them.
   */
  readonly hideFromPiContext: (ids: ReadonlyArray<string>) => Effect.Effect<void>
  /**
   * Whether a boundary hook may write its boundary itself (`appendHiddenMessage`
   * and `hideFromPiContext` reach Pi's session manager), rather than return
   * drafts that Pi applies twice, each context edit checked against the whole branch. Absent: it may not.
   */
  readonly writesInHook?: boolean
  /** Appends a hidden custom message now, even inside a boundary hook during a run: no turn, no event. */
  readonly appendHiddenMessage: (message: CustomMessageDraft) => Effect.Effect<void>
  /** Appends a custom message now (idle) or queues it for the next turn when `triggerTurn`. */
  readonly sendMessage: (message: CustomMessageDraft, options?: { readonly triggerTurn?: boolean }) => Effect.Effect<void>
  readonly notify: (message: string, level?: NoticeLevel) => Effect.Effect<void>
  /**
   * A report that stays: in Pi's TUI a chat entry (which never reaches the
   * model; the next notice would replace a notice), elsewhere a notice in plain text.
   */
  readonly showReport: (report: ReportData) => Effect.Effect<void>
  /** Pi's TUI draws pi-context's entries (the reset divider) in the chat; RPC, print and SDK hosts do not. */
  readonly chatShowsEntries: Effect.Effect<boolean>
  /** The status line; past the guidance or warning line it takes Pi's theme colour for that urgency. */
  readonly setStatus: (text: string | undefined, tone?: StatusTone) => Effect.Effect<void>
  /**
   * Asks the user to allow something, in a dialog whose answer defaults to
   * No and that no key typed before it opened can answer: "yes", "no", or
   * "unavailable" where no user can answer (print and RPC modes, an SDK
   * session without a UI).
   */
  readonly askUser: (question: UserQuestion) => Effect.Effect<"yes" | "no" | "unavailable">
  /** The definitions (name, description, parameters) of the tools among `names` offered to the model, as JSON: what a request carries of them. */
  readonly offeredToolsJson: (names: ReadonlyArray<string>) => Effect.Effect<string>
  /** Offers `names` to the model from its next request on, or stops offering them; other tools are left as they are. */
  readonly offerTools: (names: ReadonlyArray<string>, offered: boolean) => Effect.Effect<void>
  /** Aborts the current agent operation. */
  readonly abort: Effect.Effect<void>
  /**
   * Runs `effect` so that an abort of the current turn interrupts it. Outside a
   * turn (no abort signal) the effect runs as is.
   */
  readonly interruptOnAbort: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("pi-context/PiSession") {}
