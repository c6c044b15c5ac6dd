import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent"
import { registerCommands } from "./adapters/commands.ts"
import { registerHooks } from "./adapters/hooks.ts"
import { registerRenderers } from "./adapters/renderers.ts"
import { registerTools } from "./adapters/tools.ts"
import type { Host, HostOptions } from "./runtime.ts"

export interface PiContextOptions extends HostOptions {
  /** Awaited before the runtime loads; a test holds start-up open with it. */
  readonly beforeLoad?: () => Promise<void>
}

/**
 * An extension factory with options, for SDK hosts (e.g. an injected budget
 * policy). Effect is imported on first use, not at load, so Pi's start-up pays
 * only for this file and the tool schemas. One runtime per extension instance,
 * disposed on `session_shutdown`.
 */
export const createPiContext = (options: PiContextOptions = {}): ExtensionFactory => (pi: ExtensionAPI): void => {
  let host: Promise<Host> | undefined
  const load = (): Promise<Host> =>
    (host ??= (options.beforeLoad?.() ?? Promise.resolve()).then(() => import("./runtime.ts")).then(({ makeHost }) => makeHost(pi, options)))
  const armBoundaries = registerHooks(pi, load)
  registerTools(pi, load, armBoundaries)
  registerCommands(pi, load)
  registerRenderers(pi)
}

/** The Pi entry, as listed in package.json's `pi.extensions`. */
export default createPiContext()
