import { formatAddress } from "../../kernel/homes.ts"
import { conflictFix } from "../syncConflictText.ts"
import type { ConflictCopy, RemoteSyncState, SyncFailureKind, SyncOutcome } from "./syncTypes.ts"
import { plural } from "../../kernel/plural.ts"
import { formatAge } from "../snapshot.ts"

/**
 * What `/pi-context notes sync`, its `now` and doctor say about each remote,
 * from the states the sync engine keeps. Every remote and detail in a state is
 * already redacted. Pure: the caller gives the time.
 */

export const syncNowCommand = "/pi-context notes sync now"

/** What happened, in a few words. */
const failureWords: Record<SyncFailureKind, string> = {
  unreachable: "cannot reach the remote",
  auth: "the remote refused the credentials",
  timeout: "timed out",
  diverged: "the remote's history was rewritten",
  "git-missing": "git is not installed",
  other: "git failed"
}

/** What the user can do about it. */
const failureFix = (kind: SyncFailureKind, remote: string): string => {
  switch (kind) {
    case "unreachable":
      return `check the URL and the network: \`git ls-remote ${remote}\``
    case "auth":
      return `check your ssh agent or credential helper: \`git ls-remote ${remote}\``
    case "timeout":
      return `check the network; ${syncNowCommand} tries again`
    case "diverged":
      return `run ${syncNowCommand} to merge`
    case "git-missing":
      return "install git and start Pi again"
    case "other":
      return `${syncNowCommand} tries again`
  }
}

const homesOf = (state: RemoteSyncState): string => state.homes.join(", ")

const remoteTitle = (state: RemoteSyncState): string => `${state.remote} · branch ${state.branch} · ${homesOf(state)}`

const outcomeLine = (label: string, outcome: SyncOutcome | undefined, state: RemoteSyncState, nowMs: number): string => {
  if (outcome === undefined) return `  ${label}: not yet`
  const age = formatAge(outcome.atMs, nowMs)
  if (outcome._tag === "Ok") return `  ${label}: ok ${age}${outcome.detail === "" ? "" : ` (${outcome.detail})`}`
  // The divergence has a line of its own, with its backup ref: git's words would only repeat it.
  const detail = outcome.detail === "" || (outcome.kind === "diverged" && state.diverged !== undefined) ? "" : ` (${outcome.detail})`
  return `  ${label}: failed ${age}: ${failureWords[outcome.kind]}${detail}`
}

const copyLine = (copy: ConflictCopy): string => {
  const note = formatAddress({ home: copy.home, path: copy.note })
  const other = formatAddress({ home: copy.home, path: copy.copy })
  return `${note}: the other side's text is kept in ${other}`
}

const divergedLine = (backupRef: string): string =>
  `the remote's history was rewritten, so nothing is pushed over it; your local history is saved at ${backupRef}; run ${syncNowCommand} to merge`

/** One remote, several lines: its homes, the last pull and push, how far apart, what waits for the user. */
const remoteLines = (state: RemoteSyncState, nowMs: number): ReadonlyArray<string> => [
  remoteTitle(state),
  outcomeLine("last pull", state.lastPull, state, nowMs),
  outcomeLine("last push", state.lastPush, state, nowMs),
  state.ahead === undefined || state.behind === undefined
    ? "  ahead/behind: not known until a fetch succeeds"
    : `  ${plural(state.ahead, "commit")} to push, ${state.behind} to pull`,
  // A diverged remote takes no push until the user's sync now: its own line says so.
  ...(state.pushPending && state.diverged === undefined ? ["  push pending: tried again at the next window's commit"] : []),
  ...(state.diverged === undefined ? [] : [`  diverged ${formatAge(state.diverged.atMs, nowMs)}: ${divergedLine(state.diverged.backupRef)}`]),
  ...(state.conflicts.length === 0
    ? []
    : [`  conflicts pending (${state.conflicts.length}): ${conflictFix}`, ...state.conflicts.map((copy) => `    ${copyLine(copy)}`)])
]

/** What the views say when no remote syncs: where one is set, and why the ones set were ignored. */
export interface SyncSetup {
  /** The global settings file, as the user reads its path (under their home: `~/…`). */
  readonly globalSettings: string
  /** Each settings notice that ignored a `pi-context.sync` entry; empty when none was set. */
  readonly ignored: ReadonlyArray<string>
}

/** `path` as the user reads it: under their home, from `~`. */
export const shownPath = (path: string, home: string | undefined): string => {
  const base = home?.replace(/\/+$/, "")
  return base !== undefined && base.length > 0 && path.startsWith(`${base}/`) ? `~${path.slice(base.length)}` : path
}

/** The text when `pi-context.sync` names no remote: how to set one, or why the entries set were ignored. */
export const noRemoteText = (setup: SyncSetup): string =>
  (setup.ignored.length > 0
    ? [
      "No remote is set, because each pi-context.sync entry was ignored: the notes stay on this machine.",
      ...setup.ignored.map((notice) => `  ${notice}`),
      "Fix the entries as each line says (docs/sync.md)."
    ]
    : [
      "No remote is configured: the notes stay on this machine.",
      `To sync the user, agent and model homes, add to ${setup.globalSettings}:`,
      "  \"pi-context\": { \"sync\": [{ \"homes\": [\"user\", \"agent\", \"model\"], \"remote\": \"git@github.com:you/notes.git\" }] }",
      "and the project home from the project's .pi/settings.json (docs/sync.md)."
    ]).join("\n")

const remotesCount = (count: number): string => plural(count, "remote")

/** `/pi-context notes sync`: a title line, then each remote. */
export const syncStatusText = (states: ReadonlyArray<RemoteSyncState>, nowMs: number, setup: SyncSetup): string =>
  states.length === 0
    ? `pi-context notes sync\n${noRemoteText(setup)}`
    : [
      `pi-context notes sync · ${remotesCount(states.length)}`,
      ...states.flatMap((state) => remoteLines(state, nowMs)),
      `${syncNowCommand} pulls and pushes every remote now.`
    ].join("\n")

const failedNow = (state: RemoteSyncState): boolean => state.lastPull?._tag === "Failed" || state.lastPush?._tag === "Failed"

/** `/pi-context notes sync now`: what the pull and push just did, remote by remote. */
export const syncNowText = (states: ReadonlyArray<RemoteSyncState>, nowMs: number, setup: SyncSetup): string => {
  if (states.length === 0) return `pi-context notes sync now: nothing to sync\n${noRemoteText(setup)}`
  const failed = states.filter(failedNow).length
  const conflicts = states.reduce((sum, state) => sum + state.conflicts.length, 0)
  const title = failed === 0
    ? `pi-context notes sync now: ${remotesCount(states.length)} synced`
    : `pi-context notes sync now: ${failed} of ${remotesCount(states.length)} failed`
  const toResolve = conflicts === 0 ? "" : `, ${plural(conflicts, "conflict")} to resolve`
  return [`${title}${toResolve}`, ...states.flatMap((state) => remoteLines(state, nowMs))].join("\n")
}

/** Whether the user should look: a failure, a divergence or a conflict. */
export const syncNeedsAttention = (states: ReadonlyArray<RemoteSyncState>): boolean =>
  states.some((state) => failedNow(state) || state.diverged !== undefined || state.conflicts.length > 0)

/** Doctor's line for one remote: ok, or each problem with its fix. */
export const syncDoctorLine = (state: RemoteSyncState, nowMs: number): { readonly ok: boolean; readonly text: string } => {
  const problems: Array<string> = []
  if (state.diverged !== undefined) problems.push(divergedLine(state.diverged.backupRef))
  const failures = ([["pull", state.lastPull], ["push", state.lastPush]] as const).flatMap(([which, outcome]) =>
    outcome?._tag === "Failed" ? [{ which, kind: outcome.kind }] : []
  )
  for (const kind of new Set(failures.map((failure) => failure.kind))) {
    // A diverged pull is already told above, with its backup ref.
    if (kind === "diverged" && state.diverged !== undefined) continue
    const which = failures.filter((failure) => failure.kind === kind).map((failure) => failure.which).join(" and ")
    problems.push(`${which} failed: ${failureWords[kind]}; ${failureFix(kind, state.remote)}`)
  }
  if (state.conflicts.length > 0) {
    problems.push(`${plural(state.conflicts.length, "conflict")} pending (${state.conflicts.map(copyLine).join("; ")}): ${conflictFix}`)
  }
  if (state.pushPending && !failures.some((failure) => failure.which === "push")) problems.push("a push is pending: tried again at the next window's commit")
  const head = `notes sync ${state.remote} (${homesOf(state)})`
  if (problems.length > 0) return { ok: false, text: `${head}: ${problems.join("; ")}` }
  const last = [state.lastPull, state.lastPush].flatMap((outcome) => (outcome === undefined ? [] : [outcome.atMs]))
  return { ok: true, text: `${head}: ${last.length === 0 ? "not synced yet" : `synced ${formatAge(Math.max(...last), nowMs)}`}` }
}

/** The conflict copies waiting for the user, each with its note, for the notes view. */
export const pendingConflicts = (states: ReadonlyArray<RemoteSyncState>): ReadonlyArray<string> =>
  states.flatMap((state) => state.conflicts.map(copyLine))
