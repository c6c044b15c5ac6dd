import type { AgentMessage } from "@earendil-works/pi-agent-core"
import type {
  AgentBeforeSettleEvent,
  ExtensionAPI,
  ExtensionContext,
  TurnEndEvent,
  TurnEndEventResult
} from "@earendil-works/pi-coding-agent"
import { matchesKey } from "@earendil-works/pi-tui"
import { CustomType } from "../kernel/protocol.ts"
import type { BoundaryNeeds, BoundaryOutcome, BoundaryReply, ProjectReply } from "../reset/Lifecycle.ts"
import type { PiHost } from "./host.ts"

/** Pi's boundary result from the lifecycle's reply; undefined leaves Pi's drafts as they are. */
const toBoundaryResult = (reply: BoundaryReply | undefined): TurnEndEventResult | undefined =>
  reply === undefined
    ? undefined
    : {
      entries: [...reply.entries] as NonNullable<TurnEndEventResult["entries"]>,
      ...(reply.continue === undefined ? {} : { continue: reply.continue })
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
 * Pi's request from the lifecycle's projection: hidden reminders go last, so
 * the request extends the previous one and the prefix cache holds.
 */
const requestOf = (sent: ReadonlyArray<AgentMessage>, reply: ProjectReply<AgentMessage>): Array<AgentMessage> | undefined => {
  const extra = [
    ...reply.reminders.map((reminder) => hiddenMessage(reminder.customType, reminder.content, reply.windowId)),
    ...(reply.closeOut._tag === "Some" ? [hiddenMessage(CustomType.closeOut, reply.closeOut.value, reply.windowId)] : [])
  ]
  if (extra.length > 0) return [...(reply.messages ?? sent), ...extra]
  return reply.messages === undefined ? undefined : [...reply.messages]
}

/** Makes the boundary hooks live, or not, as the lifecycle's last reply said. */
export type ApplyNeeds = (needs: BoundaryNeeds) => void

/**
 * Waits for `wait`, unless Escape is pressed first (interactive mode: raw
 * terminal input reaches extensions before the editor): then true at once.
 * With `consume` the key stops here, since it belonged to what was waiting.
 */
const escapeWhile = (ctx: ExtensionContext, wait: Promise<unknown>, consume = true): Promise<boolean> =>
  new Promise((resolve) => {
    let stop = (): void => {}
    const finish = (escaped: boolean): void => {
      quietly(stop)
      stop = () => {}
      resolve(escaped)
    }
    quietly(() => {
      stop = ctx.ui.onTerminalInput((data) => {
        if (!matchesKey(data, "escape")) return undefined
        finish(true)
        return consume ? { consume: true } : undefined
      })
    })
    wait.then(() => finish(false), () => finish(false))
  })

/** A UI call that may be missing or throw in some modes: never a failed hook. */
const quietly = (use: () => void): void => {
  try {
    use()
  } catch {
    // nothing to show it on
  }
}

export interface Hooks {
  readonly applyNeeds: ApplyNeeds
  /** Resolves once start-up (root boot, repair) is done: a command must not write before it. */
  readonly started: () => Promise<unknown>
}

/**
 * Pi's events, forwarded to the host. `session_start` starts loading the
 * runtime without waiting for it: Pi's start-up is not blocked by Effect's
 * import, which finishes in the background right after (a few hundred ms
 * here). Every later hook waits for that start first, so ordering holds.
 * If the runtime cannot load at all, the user is told once and every hook
 * answers as if pi-context were absent.
 *
 * `turn_end` and `agent_before_settle` are registered only while the
 * lifecycle may write a boundary: Pi rebuilds the whole session's context
 * around each handler of those events (about 150–200 ms per turn on a
 * 50,000-entry session), even one that returns nothing.
 */
export const registerHooks = (pi: ExtensionAPI, load: () => Promise<PiHost>): Hooks => {
  let started: Promise<unknown> = Promise.resolve()
  let loadFailureReported = false

  const withHost = async <A>(ctx: ExtensionContext, use: (host: PiHost) => Promise<A>, fallback: A): Promise<A> => {
    await started
    let host: PiHost
    try {
      host = await load()
    } catch (error) {
      if (!loadFailureReported) {
        loadFailureReported = true
        ctx.ui.notify(`pi-context could not start, so it is inactive: ${error instanceof Error ? error.message : String(error)}`, "error")
      }
      return fallback
    }
    return use(host)
  }

  let offTurnEnd: (() => void) | undefined
  let offBeforeSettle: (() => void) | undefined

  /** A boundary handler: the lifecycle's reply for Pi, and which boundary hooks stay live after it. */
  const boundaryHandler = <E>(reply: (host: PiHost, event: E, ctx: ExtensionContext) => Promise<BoundaryOutcome>) =>
  (event: E, ctx: ExtensionContext) =>
    withHost(ctx, async (host) => {
      const outcome = await reply(host, event, ctx)
      apply(outcome.needs)
      return toBoundaryResult(outcome.reply)
    }, undefined)

  const onTurnEnd = boundaryHandler<TurnEndEvent>((host, event, ctx) => host.turnEnd(event, ctx))
  const onBeforeSettle = boundaryHandler<AgentBeforeSettleEvent>((host, event, ctx) =>
    host.beforeSettle({ incoming: event.entries, outcome: event.outcome, overflow: false }, ctx)
  )

  const apply = (needs: BoundaryNeeds): void => {
    if (needs.turnEnd && offTurnEnd === undefined) offTurnEnd = pi.on("turn_end", onTurnEnd)
    if (!needs.turnEnd && offTurnEnd !== undefined) {
      offTurnEnd()
      offTurnEnd = undefined
    }
    if (needs.beforeSettle && offBeforeSettle === undefined) offBeforeSettle = pi.on("agent_before_settle", onBeforeSettle)
    if (!needs.beforeSettle && offBeforeSettle !== undefined) {
      offBeforeSettle()
      offBeforeSettle = undefined
    }
  }

  /**
   * The notes writability check, once per start: its file checks (several
   * per home) would hold up the first request, so no hook waits for it, and
   * a run that was waiting on start-up goes first (the check follows when it
   * settles).
   */
  let notesCheckDue = false
  let runUnderWay = false
  const checkNotesIfDue = (ctx: ExtensionContext): void => {
    if (!notesCheckDue) return
    notesCheckDue = false
    void withHost(ctx, (host) => host.notesWritability(ctx), undefined).catch(() => undefined)
  }

  pi.on("session_start", (event, ctx) => {
    started = withHost(ctx, async (host) => apply(await host.sessionStart(event.reason, ctx)), undefined).catch(() => undefined)
    notesCheckDue = true
    void started.then(() => {
      if (!runUnderWay) checkNotesIfDue(ctx)
    })
  })
  // In the TUI a prompt waits for start-up (root boot, repair) before Pi appends it, while the
  // session is still idle, so those entries land before the prompt, never after it. Pi has no run
  // to abort yet, so Escape meanwhile would be lost: it cancels the prompt here. Anywhere else
  // (the SDK, RPC, print) nothing can reach this wait, and Pi's own abort() only stops a run that
  // has started: the prompt goes on at once and waits in before_agent_start, where the run exists,
  // its abort is seen, and the entries start-up writes are still placed before the prompt.
  pi.on("input", async (event, ctx) => {
    if (ctx.mode !== undefined && ctx.mode !== "tui") return { action: "continue" as const }
    const cancelled = await escapeWhile(ctx, withHost(ctx, async () => undefined, undefined))
    if (!cancelled) return { action: "continue" as const }
    if (event.source === "interactive") quietly(() => ctx.ui.setEditorText(event.text))
    quietly(() => ctx.ui.notify("pi-context: prompt cancelled (Escape while pi-context was starting); nothing was sent. Your text is back in the editor.", "info"))
    return { action: "handled" as const }
  })
  // A run that no prompt started (another extension's turn) can wait for start-up here. Escape then
  // reaches Pi, which marks the run aborted but still makes its first model call: that call is aborted
  // at its request.
  let abortFirstRequest = false
  pi.on("before_agent_start", async (_event, ctx) => {
    runUnderWay = true
    // Start-up first; then a root window the model has not answered in gets the notes that arrived meanwhile.
    if (await escapeWhile(ctx, withHost(ctx, async (host) => apply(await host.runStart(ctx)), undefined), false)) abortFirstRequest = true
    return undefined
  })
  pi.on("session_tree", async (_event, ctx) => withHost(ctx, (host) => host.sessionTree(ctx), undefined))
  pi.on("model_select", async (_event, ctx) => withHost(ctx, (host) => host.modelSelect(ctx), undefined))
  pi.on("turn_start", async (_event, ctx) => withHost(ctx, (host) => host.turnStart(ctx), undefined))
  pi.on("context_with_system", async (event, ctx) => {
    if (abortFirstRequest) {
      abortFirstRequest = false
      quietly(() => ctx.abort())
      return undefined
    }
    return withHost(ctx, async (host) => {
      const reply = await host.project(event.messages, ctx)
      // The request may have staged a budget reminder for this turn's end.
      apply(reply.needs)
      const messages = requestOf(event.messages, reply)
      return messages === undefined ? undefined : { messages }
    }, undefined)
  })
  // A finished reply may have overflowed, or brought the window to its hard line.
  pi.on("message_end", async (event, ctx) => {
    if (event.message.role === "assistant") {
      await withHost(ctx, async (host) => apply(await host.replyFinished(event.message, ctx)), undefined)
    }
  })
  pi.on("agent_settled", async (event, ctx) => {
    abortFirstRequest = false
    runUnderWay = false
    await withHost(ctx, async (host) => apply(await host.settled(event.aborted, ctx)), undefined)
    checkNotesIfDue(ctx)
  })
  pi.on("session_before_compact", async (event, ctx) =>
    withHost(ctx, async (host) => ((await host.compactionGuard(event.reason, ctx)) === "Block" ? { cancel: true } : undefined), undefined))
  pi.on("session_compact_failed", async (event, ctx) =>
    withHost(ctx, (host) => host.compactionFailed({ reason: event.reason, errorMessage: event.errorMessage, aborted: event.aborted }, ctx), undefined))
  pi.on("session_before_tree", async (event, ctx) =>
    withHost(ctx, async (host) =>
      (await host.treeGuard(event.preparation.targetId, event.preparation.userWantsSummary, ctx)) === "Block"
        ? { summary: { summary: "", details: { source: "pi-context", reason: "reset boundary" } } }
        : undefined, undefined))
  pi.on("session_shutdown", async (_event, ctx) => withHost(ctx, (host) => host.dispose(ctx), undefined))
  return { applyNeeds: apply, started: () => started }
}
