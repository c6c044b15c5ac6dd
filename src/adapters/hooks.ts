import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import type { Host } from "../runtime.ts"

/**
 * Pi's events, forwarded to the host. `session_start` starts loading the
 * runtime without waiting for it: Pi's start-up is not blocked by Effect's
 * import, which finishes in the background right after (a few hundred ms
 * here). Every later hook waits for that start first, so ordering holds.
 */
export const registerHooks = (pi: ExtensionAPI, load: () => Promise<Host>): void => {
  let started: Promise<unknown> = Promise.resolve()
  const ready = async (): Promise<Host> => {
    await started
    return load()
  }

  pi.on("session_start", (event, ctx) => {
    started = load().then((host) => host.sessionStart(event.reason, ctx)).catch(() => undefined)
  })
  // A prompt waits for start-up (root boot, repair) before Pi appends it, while the
  // session is still idle, so those entries land before the prompt, never after it.
  pi.on("input", async () => {
    await ready()
    return { action: "continue" as const }
  })
  pi.on("before_agent_start", async () => {
    await ready()
  })
  pi.on("session_tree", async (_event, ctx) => (await ready()).sessionTree(ctx))
  pi.on("model_select", async (_event, ctx) => (await ready()).modelSelect(ctx))
  pi.on("turn_start", async (_event, ctx) => (await ready()).turnStart(ctx))
  pi.on("context_with_system", async (event, ctx) => {
    const messages = await (await ready()).project(event.messages, ctx)
    return messages === undefined ? undefined : { messages: [...messages] }
  })
  pi.on("turn_end", async (event, ctx) => {
    const reply = await (await ready()).turnEnd(event, ctx)
    return reply === undefined ? undefined : { entries: [...reply.entries] as typeof event.entries, ...(reply.continue === undefined ? {} : { continue: reply.continue }) }
  })
  pi.on("agent_before_settle", async (event, ctx) => {
    const reply = await (await ready()).beforeSettle(event, ctx)
    return reply === undefined ? undefined : { entries: [...reply.entries] as typeof event.entries, ...(reply.continue === undefined ? {} : { continue: reply.continue }) }
  })
  pi.on("agent_settled", async (event, ctx) => (await ready()).settled(event.aborted, ctx))
  pi.on("session_before_compact", async (event, ctx) => (await ready()).compactionGuard(event.reason, ctx))
  pi.on("session_before_tree", async (event, ctx) =>
    (await ready()).treeGuard(event.preparation.targetId, event.preparation.userWantsSummary, ctx))
  pi.on("session_shutdown", async () => {
    await started
    await (await load()).dispose()
  })
}
