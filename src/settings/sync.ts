import { SettingsKey } from "../kernel/protocol.ts"
import { closestKey } from "./keys.ts"
import { isSettingsObject, type ThresholdNotice } from "./notice.ts"
import { redactRemote } from "../kernel/redact.ts"
import type { Home } from "../kernel/homes.ts"

/** The session home never travels: it is this session's alone. */
export type SyncableHome = Exclude<Home, "session">

export const SyncableHomes: ReadonlyArray<SyncableHome> = ["project", "user", "agent", "model"]

/** One entry of `pi-context.sync`, validated: these homes travel through `branch` of `remote`. */
export interface SyncRemoteSetting {
  readonly homes: ReadonlyArray<SyncableHome>
  /**
   * The git URL or path as the user wrote it. It may hold `user:password@`:
   * handed to git only, never shown unredacted.
   */
  readonly remote: string
  readonly branch: string
  /** The settings file that set it: the project home comes from trusted project settings only. */
  readonly source: "global" | "project" | "pi" | "injected"
}

/**
 * `pi-context.sync`: which note homes travel through which git remote. Each
 * settings source adds its own entries (a project's list does not replace the
 * global one, as Pi's merge would): the user, agent and model homes come from
 * the global settings or the host (set through Pi, injected), the project home
 * from trusted project settings or the host. A repository must never be able to
 * send the user's notes to its remote. Pure.
 */

/** A branch of its own, so a project's repository can carry the notes without touching its code's branches. */
export const DefaultSyncBranch = "pi-context-notes"

/** The setting's key, which every notice about it starts with. */
export const SyncSettingKey = `${SettingsKey}.sync`

export interface SyncSettings {
  readonly remotes: ReadonlyArray<SyncRemoteSetting>
  readonly notices: ReadonlyArray<ThresholdNotice>
}

/**
 * What one settings file wrote at `pi-context.<name>`, read apart from Pi's merge: the keys where a
 * project's file may add to the global settings but never replace them (`sync`, and the homes' protection).
 */
export const writtenIn = (settings: unknown, name: string): unknown => {
  const section = isSettingsObject(settings) ? settings[SettingsKey] : undefined
  return isSettingsObject(section) ? section[name] : undefined
}

/** One settings source, as `thresholds.ts` passes them. */
export interface SyncSource {
  readonly source: SyncRemoteSetting["source"]
  readonly settings: unknown
}

const entryKeys: ReadonlyArray<string> = ["homes", "remote", "branch"]

/** A string as a notice may show it: any credential in it hidden. */
const shown = (value: unknown): unknown => (typeof value === "string" ? redactRemote(value) : value)

/** Why `name` is no branch git would take, following `git check-ref-format --branch`. */
export const badBranchName = (name: string): string | undefined => {
  if (name.trim() === "") return "is empty"
  if (name.length > 200) return "is too long for a branch name"
  if (name.startsWith("-")) return "starts with -"
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return "holds a space, a control character or one of ~ ^ : ? * [ \\"
  if (name.includes("..")) return "holds .."
  if (name.includes("@{") || name === "@") return "holds @{ or is @"
  if (name.startsWith("/") || name.endsWith("/") || name.includes("//")) return "has an empty part between slashes"
  if (name.endsWith(".")) return "ends with ."
  if (name.split("/").some((part) => part.startsWith(".") || part.endsWith(".lock"))) return "has a part that starts with . or ends with .lock"
  return undefined
}

/** Why git must not be handed `remote`: an option in disguise, a command-running transport, a broken line. */
const badRemote = (remote: string): string | undefined => {
  if (remote.trim() === "") return "is empty"
  if (remote !== remote.trim()) return "has spaces around it"
  if (remote.startsWith("-")) return "starts with - (git would read it as an option)"
  if (/[\u0000-\u001f\u007f]/.test(remote)) return "holds a control character"
  if (/^(ext|fd)::/i.test(remote)) return "uses a transport that runs commands (ext:: or fd::)"
  return undefined
}

const isHome = (value: unknown): value is SyncableHome => typeof value === "string" && (SyncableHomes as ReadonlyArray<string>).includes(value)

/** Why `source` may not choose where `home` is sent, if it may not. */
const refusedFrom = (home: SyncableHome, source: SyncSource["source"]): string | undefined => {
  if (source === "pi" || source === "injected") return undefined
  if (source === "global") return home === "project" ? "is set in the project's own .pi/settings.json, not the global settings" : undefined
  return home === "project" ? undefined : "can only be set in the global settings: a repository must not send your notes to its remote"
}

type Refuse = (at: string, value: unknown, reason: string, outcome?: string) => void

/** One entry as written: its remote, branch and the homes this source may sync, or undefined when nothing of it is usable. */
const readEntry = (
  entry: unknown,
  at: string,
  source: SyncSource["source"],
  refuse: Refuse,
  notices: Array<ThresholdNotice>,
  /** The remote that already syncs `home` on another remote or branch, if one does. */
  syncedElsewhere: (home: SyncableHome, remote: string, branch: string) => string | undefined
): SyncRemoteSetting | undefined => {
  if (!isSettingsObject(entry)) return void refuse(at, entry, "is not an object { homes, remote, branch }")
  for (const [name, value] of Object.entries(entry)) {
    if (entryKeys.includes(name) || value === undefined) continue
    const suggestion = closestKey(name, entryKeys)
    // A remote pasted where a key belongs is still a remote: its credentials stay hidden.
    refuse(`${at}.${redactRemote(name)}`, value, `is not a sync setting${suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`}`)
  }
  const { homes, remote, branch } = entry
  const entryIgnored = "the entry is ignored"
  if (typeof remote !== "string") {
    return void refuse(`${at}.remote`, remote, remote === undefined ? "is missing (a git URL or path)" : "is not a git URL or path (a string)", entryIgnored)
  }
  const remoteProblem = badRemote(remote)
  if (remoteProblem !== undefined) return void refuse(`${at}.remote`, remote, remoteProblem, entryIgnored)
  const branchProblem = branch === undefined ? undefined : typeof branch === "string" ? badBranchName(branch) : "is not a branch name (a string)"
  if (branchProblem !== undefined) notices.push({ key: `${at}.branch`, value: shown(branch), used: DefaultSyncBranch, reason: branchProblem, source })
  const branchName = typeof branch === "string" && branchProblem === undefined ? branch : DefaultSyncBranch
  if (!Array.isArray(homes)) {
    return void refuse(`${at}.homes`, homes, homes === undefined ? "is missing (a list of homes)" : "is not a list of homes", entryIgnored)
  }
  if (homes.length === 0) return void refuse(`${at}.homes`, undefined, "is empty: name the homes to sync", entryIgnored)
  const accepted: Array<SyncableHome> = []
  homes.forEach((home: unknown, index) => {
    const homeAt = `${at}.homes[${index}]`
    if (home === "session") return refuse(homeAt, home, "is never synced: the session home is this session's alone")
    if (!isHome(home)) return refuse(homeAt, home, "is not a home (user, agent, model or project)")
    const refused = refusedFrom(home, source)
    if (refused !== undefined) return refuse(homeAt, home, refused)
    const elsewhere = syncedElsewhere(home, remote, branchName)
    if (elsewhere !== undefined) return refuse(homeAt, home, `is already synced through ${redactRemote(elsewhere)}`)
    if (!accepted.includes(home)) accepted.push(home)
  })
  return accepted.length === 0 ? undefined : { remote, branch: branchName, homes: accepted, source }
}

/**
 * The sync remotes of `sources` (lowest precedence first), each entry checked,
 * and a notice for every value refused or fixed. An untrusted project's list is
 * refused whole. A home syncs through one remote: a later entry naming it again
 * is refused; entries naming the same remote and branch are one.
 */
export const parseSyncSettings = (sources: ReadonlyArray<SyncSource>, projectTrusted: boolean): SyncSettings => {
  const notices: Array<ThresholdNotice> = []
  const remotes: Array<SyncRemoteSetting> = []
  const placed = new Map<SyncableHome, SyncRemoteSetting>()
  const key = SyncSettingKey
  for (const { source, settings } of sources) {
    const list = writtenIn(settings, "sync")
    if (list === undefined) continue
    const refuse: Refuse = (at, value, reason, outcome = "it is ignored") =>
      void notices.push({ key: at, value: shown(value), used: undefined, reason, outcome, source })
    if (source === "project" && !projectTrusted) {
      refuse(key, undefined, "is not used: Pi does not trust this project, and a repository must not choose where notes are sent", "no notes are synced from it")
      continue
    }
    if (!Array.isArray(list)) {
      refuse(key, list, "is not a list of { homes, remote, branch }")
      continue
    }
    list.forEach((written: unknown, index) => {
      const entry = readEntry(written, `${key}[${index}]`, source, refuse, notices, (home, remote, branch) => {
        const holder = placed.get(home)
        return holder === undefined || (holder.remote === remote && holder.branch === branch) ? undefined : holder.remote
      })
      if (entry === undefined) return
      const same = remotes.findIndex((remote) => remote.remote === entry.remote && remote.branch === entry.branch)
      const merged: SyncRemoteSetting = same < 0 ? entry : { ...remotes[same]!, homes: [...new Set([...remotes[same]!.homes, ...entry.homes])] }
      if (same < 0) remotes.push(merged)
      else remotes[same] = merged
      for (const home of merged.homes) placed.set(home, merged)
    })
  }
  return { remotes, notices }
}
