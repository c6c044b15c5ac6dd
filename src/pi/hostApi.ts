/**
 * What pi-context needs of Pi's extension API. A Pi that lacks any of it
 * (an older Pi, or a host that imitates Pi's API) gets one notice and an
 * inactive pi-context, never a hook that fails on every event.
 */
export const requiredApiMethods = [
  "on",
  "registerTool",
  "registerCommand",
  "registerEntryRenderer",
  "appendEntry",
  "sendMessage",
  "getSettings"
] as const

/** The methods of `requiredApiMethods` that `api` lacks, as `pi.name()`. */
export const missingApiMethods = (api: unknown): Array<string> =>
  requiredApiMethods.filter((name) => typeof (api as Record<string, unknown> | null | undefined)?.[name] !== "function").map((name) => `pi.${name}()`)

/**
 * The Pi version whose events pi-context relies on: `context_with_system` and
 * the `turn_end` / `agent_before_settle` boundaries (0.87), and
 * `agent_settled` telling an aborted run (1.1). An older Pi would accept the
 * handlers and never call them, so requests would go out unprojected.
 */
export const eventsSince = "1.1.0"

/** What an older Pi lacks of the events, or undefined when `version` is recent enough or unknown. */
export const missingEvents = (version: string | undefined): string | undefined => {
  const parts = version?.match(/^(\d+)\.(\d+)\.(\d+)/)
  if (parts === undefined || parts === null) return undefined
  const floor = eventsSince.split(".").map(Number)
  const have = parts.slice(1, 4).map(Number)
  for (let i = 0; i < 3; i++) {
    if (have[i]! > floor[i]!) return undefined
    if (have[i]! < floor[i]!) return `the context_with_system, turn_end boundary and agent_settled events (Pi ${eventsSince} or newer)`
  }
  return undefined
}

/** The one notice of an inactive pi-context on a host that lacks `missing`. */
export const unsupportedHostNotice = (missing: ReadonlyArray<string>, piVersion: string | undefined): string =>
  `pi-context is inactive: this Pi${piVersion === undefined ? "" : ` (${piVersion})`} lacks ${missing.join(", ")}, ` +
  "which pi-context needs for its context windows. Update Pi to a version pi-context supports (its README lists them); " +
  "until then Pi works as without pi-context."
