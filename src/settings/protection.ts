import { SettingsKey } from "../kernel/protocol.ts"
import { checkHomeList, type Sourced } from "./checks.ts"
import type { ThresholdNotice } from "./notice.ts"
import { type SyncSource, writtenIn } from "./sync.ts"
import { type Home, homeLabel } from "../kernel/homes.ts"

/**
 * `protectedHomes` and `readOnlyHomes`: protection that only grows from a
 * project. Read as the sync reads its list, from each settings file's own
 * section rather than Pi's merge (where a project's list would replace the
 * global one whole): the global settings, what was set through Pi and an
 * injected policy each set the list; a trusted project's file only adds homes
 * to it. A repository must not lower the protection of the user's notes. Pure.
 */

/** A home list and who put each home on it. */
export interface HomeList extends Sourced<ReadonlyArray<Home>> {
  /** The list a source set, then the homes each later project added: `/pi-context status` says which file set what. */
  readonly origins: ReadonlyArray<Sourced<ReadonlyArray<Home>>>
}

/** Why a project's list that leaves out `homes` does not take them out. */
const cannotLower = (homes: ReadonlyArray<Home>): string =>
  `leaves out ${homes.map(homeLabel).join(", ")}, which a project cannot take out: only the global settings lower protection, so a repository cannot open your notes to its model`

/**
 * The home list `name` resolves to over `sources` (lowest precedence first, each
 * file as written), starting from `fallback`; a notice for every value refused,
 * and for a project's list that would have removed a home.
 */
export const resolveHomeList = (
  name: "protectedHomes" | "readOnlyHomes",
  sources: ReadonlyArray<SyncSource>,
  projectTrusted: boolean,
  fallback: ReadonlyArray<Home>,
  notices: Array<ThresholdNotice>
): HomeList => {
  const key = `${SettingsKey}.${name}`
  let homes: ReadonlyArray<Home> = fallback
  let origins: ReadonlyArray<Sourced<ReadonlyArray<Home>>> = [{ value: fallback, source: "default" }]
  let last: Sourced<ReadonlyArray<Home>> = { value: fallback, source: "default" }
  for (const { source, settings } of sources) {
    const written = writtenIn(settings, name)
    // An untrusted project's settings are never read, exactly as Pi ignores them.
    if (written === undefined || (source === "project" && !projectTrusted)) continue
    // A value of the wrong kind is read as the homes it names, or refused, and never protects less than the default.
    const checked = checkHomeList(fallback)(written)
    const value = "ok" in checked ? checked.ok : "fix" in checked ? checked.fix : undefined
    // Told with the list the settings end at once this file is read, after the merge below.
    const refused = "ok" in checked ? undefined : checked.reason
    const tell = () => {
      if (refused !== undefined) notices.push({ key, value: written, used: homes, reason: refused, source })
    }
    if (value === undefined) {
      tell()
      continue
    }
    const at: Sourced<ReadonlyArray<Home>> = { value, source, key }
    if (source !== "project") {
      homes = value
      origins = [at]
      last = at
      tell()
      continue
    }
    const removed = homes.filter((home) => !value.includes(home))
    const added = value.filter((home) => !homes.includes(home))
    homes = [...homes, ...added]
    // One notice for this file's value: what was wrong with it, and the homes it could not take out.
    const reasons = [...(refused === undefined ? [] : [refused]), ...(removed.length === 0 ? [] : [cannotLower(removed)])]
    if (reasons.length > 0) notices.push({ key, value: written, used: homes, reason: reasons.join("; it also "), source })
    if (added.length > 0) {
      // An empty default says nothing beside what the project added.
      const kept = origins.filter((part) => part.source !== "default" || part.value.length > 0)
      origins = [...kept, { ...at, value: added }]
      last = at
    }
  }
  return { value: homes, source: last.source, ...(last.key === undefined ? {} : { key: last.key }), origins }
}
