import { Cause, Effect, Exit, Fiber, Layer, ManagedRuntime, Option } from "effect"
import { reportNotesWritability } from "./notes/notesHealth.ts"
import { type AnySubcommand, defaultSubcommand, type SubcommandNeeds, subcommands } from "./commands/registry.ts"
import { mapReply, notice, type Reply, type Step } from "./kernel/Subcommand.ts"
import { type TidyTool, TidyTools } from "./notes/tidy/tidy.ts"
import type { ProjectableMessage } from "./window/projection.ts"
import type { PolicySettings } from "./settings/policy.ts"
import { failed, type ToolOutcome } from "./kernel/toolOutcome.ts"
import * as BootsLive from "./boot/BootsLive.ts"
import * as BudgetLive from "./budget/BudgetLive.ts"
import * as GuardsLive from "./reset/GuardsLive.ts"
import * as HistoryLive from "./history/HistoryLive.ts"
import * as LifecycleLive from "./reset/LifecycleLive.ts"
import * as NotesVersionsLive from "./notes/versions/NotesVersionsLive.ts"
import * as NoticesLive from "./kernel/NoticesLive.ts"
import * as NotesHomesLive from "./notes/NotesHomesLive.ts"
import * as NotesStoreLive from "./notes/NotesStoreLive.ts"
import * as NotesSyncLive from "./notes/sync/NotesSyncLive.ts"
import * as Platform from "./kernel/platform.ts"
import * as ThresholdsLive from "./settings/ThresholdsLive.ts"
import * as TraceLive from "./trace/TraceLive.ts"
import * as WindowLive from "./window/WindowLive.ts"
import {
  type BoundaryInput,
  type BoundaryNeeds,
  type BoundaryOutcome,
  Lifecycle,
  type ProjectReply,
  type ReplyFacts
} from "./reset/Lifecycle.ts"
import { type CompactionFailure, Guards, type GuardVerdict } from "./reset/Guards.ts"
import { Notices } from "./kernel/Notices.ts"
import { NotesVersions, noteKeeperLayer } from "./notes/versions/NotesVersions.ts"
import { NotesSync } from "./notes/sync/NotesSync.ts"
import { PiSession } from "./kernel/PiSession.ts"
import { TidyModel, type TidyPass, type TidyPassRequest, type TidyPassResult } from "./notes/tidy/TidyModel.ts"
import { Trace } from "./trace/Trace.ts"
import { Window } from "./window/Window.ts"
import { budgetToolHandlers } from "./budget/budgetHandlers.ts"
import { historyToolHandlers } from "./history/historyHandlers.ts"
import { lifecycleToolHandlers } from "./reset/lifecycleHandlers.ts"
import { notesToolHandlers } from "./notes/notesHandlers.ts"
import { withTimeLimit } from "./kernel/timeLimit.ts"

export interface HostOptions {
  /** A policy that replaces the settings files (SDK use); resolved live on every decision. */
  readonly policy?: PolicySettings | (() => PolicySettings)
  /** The note versions' layer (tests inject a failing git); the system git by default. */
  readonly notesVersions?: typeof NotesVersionsLive.layer
  /** The notes sync's layer (tests give it a short budget); the system git by default. */
  readonly notesSync?: typeof NotesSyncLive.layer
}

/** How long session shutdown waits for the last commits of the note versions. */
export const ShutdownCommitWaitMs = 3_000
/** How long session shutdown then waits for the notes sync's last push. */
export const ShutdownSyncWaitMs = 3_000

/**
 * Every service the hooks and tools need, except the per-event PiSession; each
 * layer brings its own dependencies. The note versions are optional to the
 * lifecycle, which reads it when it is built.
 */
export const appLayer = (options: HostOptions = {}) =>
  Layer.mergeAll(
    LifecycleLive.layer,
    BootsLive.layer,
    BudgetLive.layer,
    GuardsLive.layer,
    HistoryLive.layer,
    NotesHomesLive.layer,
    NotesStoreLive.layer,
    ThresholdsLive.layer,
    TraceLive.layer,
    WindowLive.layer,
    NoticesLive.layer,
    Platform.layer,
    noteKeeperLayer
  ).pipe(
    Layer.provideMerge(options.notesVersions ?? NotesVersionsLive.layer),
    Layer.provideMerge(options.notesSync ?? NotesSyncLive.layer),
    Layer.provide(Layer.succeed(ThresholdsLive.InjectedPolicy, options.policy))
  )

type AppServices = Layer.Success<ReturnType<typeof appLayer>>

const toolHandlers: Readonly<Record<string, (params: unknown) => Effect.Effect<ToolOutcome, never, AppServices | PiSession>>> = {
  ...lifecycleToolHandlers,
  ...notesToolHandlers,
  ...historyToolHandlers,
  ...budgetToolHandlers
}

/** Tools whose call may change which boundary hooks are needed (`wipe_memory` asks for a boundary). */
const lifecycleTools: ReadonlySet<string> = new Set(Object.keys(lifecycleToolHandlers))

/** When the lifecycle cannot say, both boundary hooks stay live rather than miss a boundary. */
const unsureNeeds: BoundaryNeeds = { turnEnd: true, beforeSettle: true }

const noBoundary: BoundaryOutcome = { reply: undefined, needs: unsureNeeds }

/** A tidy pass's request, as the adapter runs it in its own Pi session. */
export interface TidySessionRequest extends TidyPassRequest {
  readonly tools: ReadonlyArray<{ readonly name: TidyTool; readonly call: (params: unknown) => Promise<ToolOutcome> }>
}

/** A later step of a subcommand, for the adapter to run once the user has answered. */
export interface LaterStep {
  (): Promise<Reply<LaterStep>>
}

/** What only Pi's side can do for the host, for one event's context `Ctx`. */
export interface HostPort<Ctx> {
  /** The PiSession port over that event's context; `trace` records what the port saw go wrong. */
  readonly session: (ctx: Ctx, trace: (event: string, fields: Readonly<Record<string, unknown>>) => void) => PiSession["Service"]
  readonly tidySession: (ctx: Ctx, request: TidySessionRequest) => Promise<TidyPassResult>
}

/**
 * One Effect runtime per extension instance. Every Pi hook runs one Effect
 * with that event's PiSession and answers with data; the adapters build Pi's
 * values from it. A hook never throws: a failure is traced, reported once per
 * hook, and answered with the hook's neutral result.
 */
export const makeRuntimeHost = <Ctx>(port: HostPort<Ctx>, options: HostOptions = {}) => {
  const runtime = ManagedRuntime.make(appLayer(options))
  const failedHooks = new Set<string>()
  /** A trace line from outside any effect (the PiSession port's fault reports). */
  const traceInfo = (event: string, fields: Readonly<Record<string, unknown>>): void =>
    void runtime.runFork(Trace.use((trace) => trace.info(event, fields)))

  const run = <A>(ctx: Ctx, label: string, effect: Effect.Effect<A, never, AppServices | PiSession>, fallback: A) =>
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
            // What the background jobs and the trace left since the last hook, oldest first.
            for (const text of yield* (yield* Notices).takeAll) yield* (yield* PiSession).notify(text, "warning")
          })
        ),
        Effect.provideService(PiSession, port.session(ctx, traceInfo))
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
  const tidyPass = (ctx: Ctx): TidyPass => (request) =>
    Effect.promise(() =>
      port.tidySession(ctx, {
        instructions: request.instructions,
        prompt: request.prompt,
        modelRef: request.modelRef,
        limits: request.limits,
        tools: TidyTools.map((name) => ({
          name,
          call: (params: unknown) => run(ctx, `tidy ${name}`, request.tool(name, params), failed("io_error", `${name} failed unexpectedly; see the pi-context trace log.`))
        }))
      })
    )

  /** A subcommand's step, run with the tidy pass at hand; its later steps become calls the adapter makes once the user answers. */
  const runStep = (ctx: Ctx, name: string, step: Step<SubcommandNeeds>): Promise<Reply<LaterStep>> =>
    run(
      ctx,
      `/pi-context ${name}`,
      Effect.map(step.pipe(Effect.provideService(TidyModel, { pass: tidyPass(ctx) })), (reply) =>
        mapReply(reply, (next): LaterStep => () => runStep(ctx, name, next))),
      notice(`pi-context: ${name} unavailable`)
    )

  const lifecycle = <A>(ctx: Ctx, label: string, f: (l: Lifecycle["Service"]) => Effect.Effect<A, never, PiSession>, fallback: A) =>
    run(ctx, label, Lifecycle.use(f), fallback)

  return {
    sessionStart: (reason: string, ctx: Ctx) =>
      run(
        ctx,
        "session_start",
        // The boot is built from the notes here; the pull, forked after it, reaches the next window's boot.
        Lifecycle.use((l) => l.sessionStarted(reason)).pipe(Effect.tap(() => NotesSync.use((sync) => sync.started))),
        unsureNeeds
      ),
    /** One notice when notes cannot be written: told after start-up, which the first request waits for, and apart from it. */
    notesWritability: (ctx: Ctx) => run(ctx, "notes writability", reportNotesWritability, undefined),
    sessionTree: (ctx: Ctx) =>
      run(ctx, "session_tree", Effect.andThen(Lifecycle.use((l) => l.treeChanged), Guards.use((g) => g.showTreeNotice)), undefined),
    modelSelect: (ctx: Ctx) => lifecycle(ctx, "model_select", (l) => l.modelChanged, undefined),
    turnStart: (ctx: Ctx) => lifecycle(ctx, "turn_start", (l) => l.turnStarted, undefined),
    runStart: (ctx: Ctx) => lifecycle(ctx, "before_agent_start", (l) => l.runStarting, unsureNeeds),
    /** The request to send as data (the adapter appends the hidden messages), and the boundary hooks it leaves needed. */
    project: <M extends ProjectableMessage>(messages: ReadonlyArray<M>, ctx: Ctx) =>
      lifecycle(ctx, "context_with_system", (l) => l.project(messages), {
        messages: undefined,
        reminders: [],
        closeOut: Option.none(),
        windowId: "",
        needs: unsureNeeds
      } satisfies ProjectReply<M> as ProjectReply<M>),
    /** A finished assistant reply: the boundary hooks it leaves needed. */
    replyFinished: (reply: ReplyFacts, ctx: Ctx) => lifecycle(ctx, "message_end", (l) => l.boundaryNeeds(reply), unsureNeeds),
    turnEnd: (input: BoundaryInput, ctx: Ctx) => lifecycle(ctx, "turn_end", (l) => l.turnEnded(input), noBoundary),
    beforeSettle: (input: BoundaryInput, ctx: Ctx) => lifecycle(ctx, "agent_before_settle", (l) => l.beforeSettle(input), noBoundary),
    settled: (aborted: boolean, ctx: Ctx) => lifecycle(ctx, "agent_settled", (l) => l.settled(aborted), unsureNeeds),
    compactionGuard: (reason: "manual" | "threshold" | "overflow", ctx: Ctx) =>
      run(ctx, "session_before_compact", Guards.use((g) => g.compactionGuard(reason)), "Allow" as GuardVerdict),
    compactionFailed: (failure: CompactionFailure, ctx: Ctx) =>
      run(ctx, "session_compact_failed", Guards.use((g) => g.compactionFailed(failure)), undefined),
    treeGuard: (targetId: string, userWantsSummary: boolean, ctx: Ctx) =>
      run(ctx, "session_before_tree", Guards.use((g) => g.treeSummaryGuard(targetId, userWantsSummary)), "Allow" as GuardVerdict),
    /** A tool's outcome; for a lifecycle tool, also the boundary hooks needed after it, from the same run. */
    tool: (name: string, params: unknown, ctx: Ctx): Promise<{ readonly outcome: ToolOutcome; readonly needs: BoundaryNeeds | undefined }> => {
      const handler = toolHandlers[name]
      if (handler === undefined) return Promise.resolve({ outcome: failed("invalid_argument", `pi-context has no tool named ${name}.`), needs: undefined })
      const needs = lifecycleTools.has(name) ? Lifecycle.use((l) => l.boundaryNeeds()) : Effect.succeed(undefined)
      return run(
        ctx,
        name,
        Effect.map(Effect.zip(withTimeLimit(name)(handler(params)), needs), ([outcome, needs]) => ({ outcome, needs })),
        { outcome: failed("io_error", `${name} failed unexpectedly; see the pi-context trace log.`), needs: lifecycleTools.has(name) ? unsureNeeds : undefined }
      )
    },
    wipeCommand: (ctx: Ctx) => lifecycle(ctx, "/wipe-memory", (l) => l.wipeNow, undefined),
    /** The `/pi-context` subcommands, for the adapter to list and dispatch. */
    subcommands,
    defaultSubcommand,
    /** Runs one subcommand with the words after its name: what to show, or to ask the user, as data. */
    command: (command: AnySubcommand, args: ReadonlyArray<string>, ctx: Ctx) => runStep(ctx, command.name, command.run(args)),
    /** Ends the last window, which commits and pushes what it changed (waiting a bounded time for each), then closes the runtime. */
    dispose: async (ctx?: Ctx) => {
      if (ctx !== undefined) {
        await run(ctx, "session_shutdown", Effect.gen(function*() {
          yield* (yield* Window).sessionEnding
          yield* (yield* NotesVersions).awaitCommits(ShutdownCommitWaitMs)
          yield* (yield* NotesSync).awaitRounds(ShutdownSyncWaitMs)
        }), undefined)
      }
      await runtime.dispose()
    }
  }
}
