/** The eval's records: what one job is, and what one run measured. */
import type { InjectedFailure } from "../scripted/provider.ts"
import type { WindowSignals } from "../../src/window/signals.ts"
import type { Probe } from "./probe.ts"
import type { CompactionSetting, MaskSetting } from "./settings.ts"
import type { StandIn } from "../scripted/standIn.ts"

export interface JobSpec {
  readonly task: string
  /** The folder of the user's own tasks the task comes from (absolute); undefined: a built-in task. */
  readonly tasksDir?: string | undefined
  /** `pi-context`, `compaction`, `masking`, `hybrid` (masking, compaction as its fallback), `none`, `fresh`, or `ext:<path or package>`. */
  readonly arm: string
  readonly seed: number
  /** `scripted`, or `provider/id` from the user's Pi set-up. */
  readonly model: string
  readonly window: number
  /** Where the run's session file, repository copy and logs are kept. */
  readonly runDir: string
  /** The user's Pi agent dir (models and credentials are read from it). */
  readonly userAgentDir: string
  /** Where `npm run eval` was started: relative `ext:` paths resolve from here. */
  readonly invokedFrom: string
  /** A model call that streams nothing for this long is abandoned. */
  readonly callTimeoutMs: number
  /** A compaction summary that takes longer than this (one call, however it streams) ends the run; it is not model silence. */
  readonly summaryTimeoutMs: number
  readonly runTimeoutMs: number
  readonly maxCalls: number
  readonly retry: { readonly maxRetries: number; readonly baseDelayMs: number }
  /** pi-context's lines for the pi-context arm (tokens left); undefined: its defaults. */
  readonly lines?: { readonly guidanceLine: number; readonly warningLine: number; readonly hardLine: number } | undefined
  /** Tests only: how long the scripted model sits silent before it answers a compaction summary request. */
  readonly summaryDelayMs?: number
  /** Pi's compaction numbers for every arm that compacts; undefined: the window's (settings.ts). */
  readonly compaction?: CompactionSetting | undefined
  /** The masking arms' setting; undefined: their defaults. */
  readonly mask?: MaskSetting | undefined
  /** The scripted agent's variant; undefined: its default. */
  readonly standIn?: StandIn | undefined
  /** Tests only: provider failures the scripted model injects, by call number. */
  readonly failures?: Readonly<Record<string, InjectedFailure>>
}

export interface Turnovers {
  readonly resets: number
  /** Resets by what ended the window (`wipe_memory`, `hard line`, `close-out`, `overflow`, ...). */
  readonly resetsBySource: Readonly<Record<string, number>>
  readonly compactions: number
  readonly total: number
}

export interface Tokens {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
}

export interface RequestOutcome {
  readonly id: string
  readonly sent: boolean
  /** How it was sent: the trigger it waited for, or `idle` when the run never reached it. */
  readonly sentAs: string
  readonly answered: boolean
  /** Replies that answer it again after a turnover that followed its first answer. */
  readonly repeatedAfterTurnover: number
}

export interface RunFailure {
  readonly kind: "rate-limit" | "server-error" | "context-overflow" | "timeout" | "max-calls" | "harness" | "provider"
  readonly message: string
}

/**
 * A failure of the provider or the harness, not of the task: a rate limit, a server error, a refused request,
 * a model that stopped answering, a run that could not start. Reported apart, never as a failed task, and run
 * again by `--resume`.
 */
export const isInfrastructureFailure = (failure: RunFailure | undefined): boolean =>
  failure !== undefined && (failure.kind === "rate-limit" || failure.kind === "server-error" || failure.kind === "provider" || failure.kind === "harness" ||
    (failure.kind === "timeout" && failure.message.startsWith("no answer from the model")))

/** One point of the chart: a model call, the tokens it sent, and whether a turnover came just before it. */
export interface CallPoint {
  readonly call: number
  readonly sent: number
  readonly turnoverBefore: "reset" | "compaction" | undefined
}

export interface RunResult {
  readonly task: string
  readonly arm: string
  readonly seed: number
  readonly model: string
  readonly scripted: boolean
  readonly window: number
  readonly versions: { readonly piContext: string; readonly pi: string; readonly model: string }
  /** The commit of pi-context the run measured (with "+changes" when its checkout had uncommitted changes). */
  readonly commit: string | undefined
  /** Pi's settings the arm ran with (the settings file the eval wrote). */
  readonly settings: Record<string, unknown>
  /** The scripted agent's variant the run used (scripted runs only). */
  readonly standIn?: StandIn | undefined
  readonly success: boolean
  readonly verifierPassed: boolean
  readonly verifierFailures: ReadonlyArray<string>
  readonly requests: ReadonlyArray<RequestOutcome>
  readonly earlyStop: boolean
  readonly statedBlocked: boolean
  /** The same failing call was made three times or more. */
  readonly stuck: boolean
  readonly repliesToOlderRequests: number
  readonly turnovers: Turnovers
  readonly modelCalls: number
  readonly tokens: Tokens
  readonly costUsd: number
  readonly wallMs: number
  readonly notesWritten: number
  readonly historyToolCalls: number
  readonly failure: RunFailure | undefined
  readonly sessionFile: string | undefined
  readonly calls: ReadonlyArray<CallPoint>
  /** One continuity probe per turnover, answered by the run's own model. */
  readonly probes: ReadonlyArray<Probe>
  /** How each window of the run went (pi-context's resets), as `/pi-context report --json` gives it. */
  readonly resets: ReadonlyArray<WindowSignals>
}

/** Progress a worker reports while it runs. */
export interface Progress {
  readonly turn: number
  readonly calls: number
  readonly tokens: number
  readonly turnovers: number
  readonly costUsd: number
}
