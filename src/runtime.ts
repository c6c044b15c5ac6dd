import type { AgentMessage } from "@earendil-works/pi-agent-core"
import { type AssistantMessage, isContextOverflow, isRecoverableLength } from "@earendil-works/pi-ai"
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { Cause, Effect, Exit, Fiber, Layer, ManagedRuntime, Option } from "effect"
import { notesToolSpecs } from "./adapters/notesTools.ts"
import { reportNotesWritability } from "./commands/notesHealth.ts"
import { type AnySubcommand, defaultSubcommand, subcommands } from "./commands/registry.ts"
import { TidyTools } from "./domain/notes/tidy.ts"
import { replyTokens } from "./domain/projection.ts"
import type { PolicySettings } from "./domain/thresholds.ts"
import { failed, type ToolOutcome } from "./domain/toolOutcome.ts"
import type { TurnOutcome } from "./domain/resetControl.ts"
import * as BootsLive from "./layers/BootsLive.ts"
import * as BudgetLive from "./layers/BudgetLive.ts"
import * as HistoryLive from "./layers/HistoryLive.ts"
import * as LifecycleLive from "./layers/LifecycleLive.ts"
import * as NotesHistoryLive from "./layers/NotesHistoryLive.ts"
import * as NotesStoreLive from "./layers/NotesStoreLive.ts"
import * as PiSessionLive from "./layers/PiSessionLive.ts"
import * as Platform from "./layers/platform.ts"
import * as ThresholdsLive from "./layers/ThresholdsLive.ts"
import * as TraceLive from "./layers/TraceLive.ts"
import { activeWindow } from "./domain/windows.ts"
import { type BoundaryNeeds, Lifecycle } from "./services/Lifecycle.ts"
import { NotesHistory } from "./services/NotesHistory.ts"
import { PiSession } from "./services/PiSession.ts"
import { TidyModel, type TidyPass } from "./services/TidyModel.ts"
import { Trace } from "./services/Trace.ts"
import { budgetToolHandlers } from "./tools/budget.ts"
import { historyToolHandlers } from "./tools/history.ts"
import { lifecycleToolHandlers } from "./tools/lifecycle.ts"
import { notesToolHandlers } from "./tools/notes.ts"
import { withTimeBudget } from "./tools/timeBudget.ts"

export interface HostOptions {
  /** A policy that replaces the settings files (SDK use); resolved live on every decision. */
  readonly policy?: PolicySettings | (() => PolicySettings)
  /** The notes history's layer (tests inject a failing git); the system git by default. */
  readonly notesHistory?: typeof NotesHistoryLive.layer
}

/** How long session shutdown waits for the notes history's last commits. */
export const ShutdownCommitWaitMs = 3_000

/**
 * Every service the hooks and tools need, except the per-event PiSession; each
 * layer brings its own dependencies. The notes history is optional to the
 * lifecycle, which reads it when it is built.
 */
export const appLayer = (options: HostOptions = {}) =>
  Layer.mergeAll(
    LifecycleLive.layer,
    BootsLive.layer,
    BudgetLive.layer,
    HistoryLive.layer,
    NotesStoreLive.layer,
    ThresholdsLive.layer,
    TraceLive.layer,
    Platform.layer
  ).pipe(
    Layer.provideMerge(options.notesHistory ?? NotesHistoryLive.layer),
    Layer.provide(Layer.succeed(ThresholdsLive.InjectedPolicy, options.policy))
  )

type AppServices = Layer.Success<ReturnType<typeof appLayer>>

const toolHandlers: Readonly<Record<string, (params: unknown) => Effect.Effect<ToolOutcome, never, AppServices | PiSession>>> = {
  ...lifecycleToolHandlers,
  ...notesToolHandlers,
  ...historyToolHandlers,
  ...budgetToolHandlers
}

/**
 * Whether a reply overflowed, by Pi's own tests. They read fields a reply
 * from another extension's provider may lack (its usage); such a reply
 * counts as no overflow rather than failing the hook.
 */
const overflowed = (assistant: AssistantMessage, ctx: ExtensionContext): boolean => {
  try {
    return isContextOverflow(assistant, ctx.model?.contextWindow) ||
      (ctx.model !== undefined && isRecoverableLength(assistant, ctx.model.maxTokens))
  } catch {
    return false
  }
}

/** Pi's turn facts, reduced to what the lifecycle decides on. */
const turnFacts = (outcome: TurnOutcome, message: AgentMessage | undefined, ctx: ExtensionContext) => {
  const assistant = message !== undefined && message.role === "assistant" ? (message as AssistantMessage) : undefined
  const overflow = assistant !== undefined && assistant.stopReason !== "aborted" && overflowed(assistant, ctx)
  const aborted = outcome === "aborted" || assistant?.stopReason === "aborted" || ctx.signal?.aborted === true
  return { outcome: aborted ? "aborted" as const : outcome, overflow }
}

/** When the lifecycle cannot say, both boundary hooks stay live rather than miss a boundary. */
const unsureNeeds: BoundaryNeeds = { turnEnd: true, beforeSettle: true }

/** An assistant reply's facts for arming the boundary hooks: an overflow, or the tokens its request used. */
const replyFacts = (message: AgentMessage, ctx: ExtensionContext) => {
  const { overflow } = turnFacts("completed", message, ctx)
  return { overflow, tokens: replyTokens(message) ?? null }
}

const hiddenMessage = (customType: string, text: string, windowId: string): AgentMessage => ({
  role: "custom",
  customType,
  content: text,
  display: false,
  details: { windowId },
  timestamp: Date.now()
}) as AgentMessage

/**
 * One Effect runtime per extension instance. Every Pi hook runs an Effect
 * with that event's PiSession; a hook never throws: a failure is traced,
 * reported once per hook, and answered with the hook's neutral result.
 */
export const makeHost = (pi: ExtensionAPI, options: HostOptions = {}) => {
  const runtime = ManagedRuntime.make(appLayer(options))
  const failedHooks = new Set<string>()
  const reportedFaults = new Set<PiSessionLive.PiOperation>()

  /** A Pi call that threw on foreign data: traced each time, told once per operation. */
  const faultReporter = (ctx: ExtensionContext): PiSessionLive.PiFault => ({ operation, error }) => {
    const reason = (error instanceof Error ? error.message : String(error)).split("\n", 1)[0]!.slice(0, 160)
    runtime.runFork(Trace.use((trace) => trace.info("pi.fault", { operation, reason })))
    if (reportedFaults.has(operation)) return
    reportedFaults.add(operation)
    Effect.runSync(PiSessionLive.make(pi, ctx).notify(
      `pi-context: Pi's ${operation} could not be read (${reason}); a session entry that another extension wrote ` +
        `may have a shape Pi does not expect. Until it can be read, ${PiSessionLive.faultFallback[operation]}.`,
      "warning"
    ))
  }

  const run = <A>(ctx: ExtensionContext, label: string, effect: Effect.Effect<A, never, AppServices | PiSession>, fallback: A) =>
    runFast(
      effect.pipe(
        Effect.catchCause((cause) =>
          Effect.gen(function*() {
            if (!Cause.hasInterruptsOnly(cause)) {
              yield* (yield* Trace).info("hook.failed", { hook: label, cause: Cause.pretty(cause).slice(0, 2000) })
              // Told once per hook: a hook that fails on every request must not flood the screen.
              if (!failedHooks.has(label)) {
                failedHooks.add(label)
                yield* (yield* PiSession).notify(`pi-context: ${label} failed; Pi continues without it. See /pi-context trace.`, "error")
              }
            }
            return fallback
          })
        ),
        Effect.tap(() =>
          Effect.gen(function*() {
            const failure = yield* (yield* Trace).takeFailure
            if (Option.isSome(failure)) yield* (yield* PiSession).notify(failure.value, "warning")
            const historyNotice = yield* (yield* NotesHistory).takeNotice
            if (Option.isSome(historyNotice)) yield* (yield* PiSession).notify(historyNotice.value, "warning")
          })
        ),
        Effect.provideService(PiSession, PiSessionLive.make(pi, ctx, faultReporter(ctx)))
      )
    ).catch(() => fallback)

  /**
   * Most hooks finish without waiting on anything (the projection runs
   * before every provider request): run them synchronously, and only an
   * effect that really suspends (a file read, a lock) continues as a promise.
   */
  const runFast = <A>(effect: Effect.Effect<A, never, AppServices>): Promise<A> => {
    const exit = runtime.runSyncExit(effect)
    if (Exit.isSuccess(exit)) return Promise.resolve(exit.value)
    const suspended = Cause.squash(exit.cause)
    if (Cause.isAsyncFiberError(suspended)) return runtime.runPromise(Fiber.join(suspended.fiber as Fiber.Fiber<A>))
    return Promise.reject(Cause.squash(exit.cause))
  }



  /** The tidy pass runs in its own Pi session; its tool calls come back here, on this session's identity. */
  const tidyPass = (ctx: ExtensionContext): TidyPass => (request) =>
    Effect.promise(async () => {
      const { runTidySession } = await import("./adapters/tidySession.ts")
      return runTidySession(ctx, {
        instructions: request.instructions,
        prompt: request.prompt,
        modelRef: request.modelRef,
        tools: TidyTools.map((name) => ({
          spec: notesToolSpecs.find((spec) => spec.name === name)!,
          call: (params: unknown) => run(ctx, `tidy ${name}`, request.tool(name, params), failed("io_error", `${name} failed unexpectedly; see the pi-context trace log.`))
        }))
      })
    })

  const lifecycle = <A>(ctx: ExtensionContext, label: string, f: (l: Lifecycle["Service"]) => Effect.Effect<A, never, PiSession>, fallback: A) =>
    run(ctx, label, Lifecycle.use(f), fallback)

  return {
    sessionStart: (reason: string, ctx: ExtensionContext) =>
      run(ctx, "session_start", Effect.andThen(Lifecycle.use((l) => l.sessionStarted(reason)), reportNotesWritability), undefined),
    sessionTree: (ctx: ExtensionContext) => lifecycle(ctx, "session_tree", (l) => l.treeChanged, undefined),
    modelSelect: (ctx: ExtensionContext) => lifecycle(ctx, "model_select", (l) => l.modelChanged, undefined),
    turnStart: (ctx: ExtensionContext) => lifecycle(ctx, "turn_start", (l) => l.turnStarted, undefined),
    /** The request to send (undefined: Pi's own), and the boundary hooks this request leaves needed, in one run. */
    project: (messages: ReadonlyArray<AgentMessage>, ctx: ExtensionContext) =>
      lifecycle(
        ctx,
        "context_with_system",
        (l) => l.project(messages, hiddenMessage),
        { messages: undefined, needs: unsureNeeds }
      ),
    boundaryNeeds: (ctx: ExtensionContext, reply?: AgentMessage) =>
      lifecycle(ctx, "boundary hooks", (l) => l.boundaryNeeds(reply === undefined ? undefined : replyFacts(reply, ctx)), unsureNeeds),
    turnEnd: (
      event: {
        entries: ReadonlyArray<unknown>
        outcome: TurnOutcome
        message: AgentMessage
        toolResults: ReadonlyArray<unknown>
        context: { contextMessages: ReadonlyArray<AgentMessage> }
      },
      ctx: ExtensionContext
    ) =>
      lifecycle(ctx, "turn_end", (l) =>
        l.turnEnded({
          incoming: event.entries,
          messages: event.context.contextMessages,
          toolTurn: event.toolResults.length > 0,
          ...turnFacts(event.outcome, event.message, ctx)
        }), undefined),
    beforeSettle: (event: { entries: ReadonlyArray<unknown>; outcome: TurnOutcome }, ctx: ExtensionContext) =>
      lifecycle(ctx, "agent_before_settle", (l) => l.beforeSettle({ incoming: event.entries, outcome: event.outcome, overflow: false }), undefined),
    settled: (aborted: boolean, ctx: ExtensionContext) => lifecycle(ctx, "agent_settled", (l) => l.settled(aborted), undefined),
    compactionGuard: (reason: "manual" | "threshold" | "overflow", ctx: ExtensionContext) =>
      lifecycle(ctx, "session_before_compact", (l) =>
        Effect.gen(function*() {
          const verdict = yield* l.compactionGuard(reason)
          if (verdict._tag === "Allow") return undefined
          if (verdict.notice !== undefined) yield* (yield* PiSession).notify(verdict.notice, "warning")
          return { cancel: true } as const
        }), undefined),
    treeGuard: (targetId: string, userWantsSummary: boolean, ctx: ExtensionContext) =>
      lifecycle(ctx, "session_before_tree", (l) =>
        Effect.gen(function*() {
          const verdict = yield* l.treeSummaryGuard(targetId, userWantsSummary)
          if (verdict._tag === "Allow") return undefined
          if (verdict.notice !== undefined) yield* (yield* PiSession).notify(verdict.notice, "info")
          return { summary: { summary: "", details: { source: "pi-context", reason: "reset boundary" } } }
        }), undefined),
    tool: (name: string, params: unknown, ctx: ExtensionContext): Promise<ToolOutcome> => {
      const handler = toolHandlers[name]
      if (handler === undefined) return Promise.resolve(failed("invalid_argument", `pi-context has no tool named ${name}.`))
      return run(ctx, name, withTimeBudget(name)(handler(params)), failed("io_error", `${name} failed unexpectedly; see the pi-context trace log.`))
    },
    wipeCommand: (ctx: ExtensionContext) => lifecycle(ctx, "/wipe-memory", (l) => l.wipeNow, undefined),
    /** The `/pi-context` subcommands, for the adapter to list and dispatch. */
    subcommands,
    defaultSubcommand,
    /** Runs one subcommand with the words after its name: its report, if it has one. */
    command: (command: AnySubcommand, args: ReadonlyArray<string>, ctx: ExtensionContext) =>
      run(
        ctx,
        `/pi-context ${command.name}`,
        command.run(args).pipe(Effect.provideService(TidyModel, { pass: tidyPass(ctx) })),
        `pi-context: ${command.name} unavailable`
      ),
    /** Commits what the last window changed (waiting a bounded time), then closes the runtime. */
    dispose: async (ctx?: ExtensionContext) => {
      if (ctx !== undefined) {
        await run(ctx, "session_shutdown", Effect.gen(function*() {
          const session = yield* PiSession
          const { ordinal } = activeWindow(yield* session.branch, session.sessionId)
          yield* (yield* NotesHistory).sessionEnded({ ordinal }, ShutdownCommitWaitMs)
        }), undefined)
      }
      await runtime.dispose()
    }
  }
}

export type Host = ReturnType<typeof makeHost>
