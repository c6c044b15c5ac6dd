import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent"
import { registerCommands } from "./adapters/commands.ts"
import { registerHooks } from "./adapters/hooks.ts"
import { registerRenderers } from "./adapters/renderers.ts"
import { registerReportRenderer } from "./adapters/reportView.ts"
import { registerTools } from "./adapters/tools.ts"
import type { PiHost } from "./adapters/host.ts"
import type { HostOptions } from "./runtime.ts"

/**
 * An extension factory with options, for SDK hosts (e.g. an injected budget
 * policy). Effect is imported on first use, not at load, so Pi's start-up pays
 * only for this file and the tool schemas. One runtime per extension instance,
 * disposed on `session_shutdown`.
 */
export const createPiContext = (options: HostOptions = {}): ExtensionFactory => (pi: ExtensionAPI): void => {
  let host: Promise<PiHost> | undefined
  const load = (): Promise<PiHost> => (host ??= import("./adapters/host.ts").then(({ makePiHost }) => makePiHost(pi, options)))
  const hooks = registerHooks(pi, load)
  registerTools(pi, load, hooks.applyNeeds)
  // A command waits for start-up, so its entries never land before the root boot.
  registerCommands(pi, () => hooks.started().then(load))
  registerRenderers(pi)
  registerReportRenderer(pi)
}

/** The Pi entry, as listed in package.json's `pi.extensions`. */
export default createPiContext()
