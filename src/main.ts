import * as PiCodingAgent from "@earendil-works/pi-coding-agent"
import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent"
import { registerCommands } from "./pi/commands.ts"
import { registerHooks } from "./pi/hooks.ts"
import { registerRenderers } from "./pi/renderers.ts"
import { registerReportRenderer } from "./pi/reportView.ts"
import { registerTools } from "./pi/tools.ts"
import type { PiHost } from "./pi/host.ts"
import { missingApiMethods, missingEvents, unsupportedHostNotice } from "./pi/hostApi.ts"
import type { HostOptions } from "./runtime.ts"

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
/**
 * The runtime's import (Effect and the services: over 100 ms of synchronous
 * module loading, bench/load.ts) starts after the event that asked for it has
 * returned to Pi, so Pi finishes binding its extensions first; the first
 * prompt waits for it as before.
 */
const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

export const createPiContext = (options: PiContextOptions = {}): ExtensionFactory => (pi: ExtensionAPI): void => {
  if (refusesHost(pi)) return
  let host: Promise<PiHost> | undefined
  const load = (): Promise<PiHost> =>
    (host ??= (options.beforeLoad?.() ?? nextMacrotask()).then(() => import("./pi/host.ts")).then(({ makePiHost }) => makePiHost(pi, options)))
  const hooks = registerHooks(pi, load)
  registerTools(pi, load, hooks.applyNeeds)
  // A command waits for start-up, so its entries never land before the root boot.
  registerCommands(pi, () => hooks.started().then(load))
  registerRenderers(pi)
  registerReportRenderer(pi)
}

/**
 * Whether this Pi lacks what pi-context needs; if so, nothing is registered
 * but one start-up notice. Without even `pi.on` there is no way to tell the
 * user but Pi's own load error, so the factory throws the notice.
 */
const refusesHost = (pi: ExtensionAPI): boolean => {
  // Read off the namespace: a host without this export must still get the notice.
  const version = typeof PiCodingAgent.VERSION === "string" ? PiCodingAgent.VERSION : undefined
  const missing = missingApiMethods(pi)
  const events = missingEvents(version)
  if (events !== undefined) missing.push(events)
  if (missing.includes("pi.on()")) throw new Error(unsupportedHostNotice(missing, version))
  let told = false
  // pi-context drops its boundary hooks between turns, so it needs the unsubscribe function Pi 1.x returns.
  const off = pi.on("session_start", (_event, ctx) => {
    if (missing.length === 0 || told) return
    told = true
    ctx.ui.notify(unsupportedHostNotice(missing, version), "error")
  })
  if (typeof off !== "function") missing.push("the unsubscribe function that pi.on() returns")
  return missing.length > 0
}

/** The Pi entry, as listed in package.json's `pi.extensions`. */
export default createPiContext()
