import type { ExtensionAPI, ExtensionContext, TurnEndEventResult } from "@earendil-works/pi-coding-agent"
import type { BoundaryReply } from "../services/Lifecycle.ts"
import type { Host } from "../runtime.ts"

/** Pi's boundary result from the lifecycle's reply; undefined leaves Pi's drafts as they are. */
const toBoundaryResult = (reply: BoundaryReply | undefined): TurnEndEventResult | undefined =>
  reply === undefined
    ? undefined
    : {
      entries: [...reply.entries] as NonNullable<TurnEndEventResult["entries"]>,
      ...(reply.continue === undefined ? {} : { continue: reply.continue })
    }

/**
 * Pi's events, forwarded to the host. `session_start` starts loading the
 * runtime without waiting for it: Pi's start-up is not blocked by Effect's
 * import, which finishes in the background right after (a few hundred ms
 * here). Every later hook waits for that start first, so ordering holds.
 * If the runtime cannot load at all, the user is told once and every hook
 * answers as if pi-context were absent.
 */
export const registerHooks = (pi: ExtensionAPI, load: () => Promise<Host>): void => {
  let started: Promise<unknown> = Promise.resolve()
  let loadFailureReported = false

  const withHost = async <A>(ctx: ExtensionContext, use: (host: Host) => Promise<A>, fallback: A): Promise<A> => {
    await started
    let host: Host
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

  pi.on("session_start", (event, ctx) => {
    started = withHost(ctx, (host) => host.sessionStart(event.reason, ctx), undefined).catch(() => undefined)
  })
  // A prompt waits for start-up (root boot, repair) before Pi appends it, while the
  // session is still idle, so those entries land before the prompt, never after it.
  pi.on("input", async (_event, ctx) => withHost(ctx, async () => ({ action: "continue" as const }), { action: "continue" as const }))
  pi.on("before_agent_start", async (_event, ctx) => withHost(ctx, async () => undefined, undefined))
  pi.on("session_tree", async (_event, ctx) => withHost(ctx, (host) => host.sessionTree(ctx), undefined))
  pi.on("model_select", async (_event, ctx) => withHost(ctx, (host) => host.modelSelect(ctx), undefined))
  pi.on("turn_start", async (_event, ctx) => withHost(ctx, (host) => host.turnStart(ctx), undefined))
  pi.on("context_with_system", async (event, ctx) =>
    withHost(ctx, async (host) => {
      const messages = await host.project(event.messages, ctx)
      return messages === undefined ? undefined : { messages: [...messages] }
    }, undefined))
  pi.on("turn_end", async (event, ctx) => withHost(ctx, async (host) => toBoundaryResult(await host.turnEnd(event, ctx)), undefined))
  pi.on("agent_before_settle", async (event, ctx) =>
    withHost(ctx, async (host) => toBoundaryResult(await host.beforeSettle(event, ctx)), undefined))
  pi.on("agent_settled", async (event, ctx) => withHost(ctx, (host) => host.settled(event.aborted, ctx), undefined))
  pi.on("session_before_compact", async (event, ctx) => withHost(ctx, (host) => host.compactionGuard(event.reason, ctx), undefined))
  pi.on("session_before_tree", async (event, ctx) =>
    withHost(ctx, (host) => host.treeGuard(event.preparation.targetId, event.preparation.userWantsSummary, ctx), undefined))
  pi.on("session_shutdown", async (_event, ctx) => withHost(ctx, (host) => host.dispose(), undefined))
}
