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

/** The one notice of an inactive pi-context on a host that lacks `missing`. */
export const unsupportedHostNotice = (missing: ReadonlyArray<string>, piVersion: string | undefined): string =>
  `pi-context is inactive: this Pi${piVersion === undefined ? "" : ` (${piVersion})`} lacks ${missing.join(", ")}, ` +
  "which pi-context needs for its context windows. Update Pi to a version pi-context supports (its README lists them); " +
  "until then Pi works as without pi-context."
