import { homeDirectory, type NotesIdentity, stampedName, wastebasketDirectory } from "../identity.ts"
import { isGitFolder } from "../address.ts"
import { hasUnshowableCharacter, shownName, shownText } from "../../kernel/names.ts"
import { plural } from "../../kernel/plural.ts"
import type { SyncFailureKind } from "./syncTypes.ts"
import type { SyncableHome } from "../../settings/sync.ts"

/**
 * The pure decisions of notes sync: where each home sits in a remote's tree,
 * which side's text a note takes when it is copied into the mirror, what a
 * conflict copy is called, and what git's words mean.
 */

/** One home as the mirror holds it: at `prefix` in the remote's tree, from `dir` on this machine. */
export interface SyncTree {
  readonly home: SyncableHome
  /** The home's folder in the remote's tree: the same on every machine. */
  readonly prefix: string
  readonly dir: string
  /** Where a note of this home the other side deleted goes: the home's wastebasket, as retiring it would. */
  readonly wastebasket: string
}

/**
 * A home's folder in the remote's tree. The project home's folder on this
 * machine is named by a hash of the project's path, which differs per
 * machine: in the remote it is `project/`. The agent and model homes are the
 * session's own (`agents/<agent>/`, `models/<model>/`): another model's home
 * travels when a session on that model syncs.
 */
export const treePrefix = (identity: NotesIdentity, home: SyncableHome): string => {
  switch (home) {
    case "project":
      return "project"
    case "user":
      return "user"
    case "agent":
      return `agents/${identity.agentName}`
    case "model":
      return `models/${identity.modelSlug}`
  }
}

export const syncTrees = (
  identity: NotesIdentity,
  homes: ReadonlyArray<SyncableHome>,
  join: (...segments: ReadonlyArray<string>) => string
): ReadonlyArray<SyncTree> =>
  homes.map((home) => ({
    home,
    prefix: treePrefix(identity, home),
    dir: homeDirectory(identity, home, join),
    wastebasket: wastebasketDirectory(identity, home, join)
  }))

/**
 * The home a path of the remote's tree belongs to, and the tree that holds
 * it on this machine: another agent's or model's home is that home under
 * the root (the session's own project home is the only project home).
 */
export const treeOfKey = (
  identity: NotesIdentity,
  key: string,
  join: (...segments: ReadonlyArray<string>) => string
): { readonly tree: SyncTree; readonly relative: string } | undefined => {
  const [top, name, ...rest] = key.split("/")
  if (name === undefined) return undefined
  if (top === "user" || top === "project") return { tree: syncTrees(identity, [top], join)[0]!, relative: [name, ...rest].join("/") }
  if ((top !== "agents" && top !== "models") || rest.length === 0) return undefined
  // Another agent's or model's home: the one an identity of that name has.
  const owner = top === "agents" ? { ...identity, agentName: name } : { ...identity, modelSlug: name }
  return { tree: syncTrees(owner, [top === "agents" ? "agent" : "model"], join)[0]!, relative: rest.join("/") }
}

/**
 * The remote as git is handed it: a URL (`https://`, `ssh://`, `file://`) or
 * scp-like `host:path` as written; a path with `~/` under the user's home, and
 * a relative path from the session's folder, as a shell there would take it
 * (git itself runs in the mirror's folder).
 */
export const remoteForGit = (
  remote: string,
  home: string | undefined,
  cwd: string,
  resolve: (...segments: ReadonlyArray<string>) => string
): string => {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(remote)) return remote
  if (/^[^/\\]*:/.test(remote) && !/^[a-z]:[\\/]/i.test(remote)) return remote
  if ((remote === "~" || remote.startsWith("~/")) && home !== undefined) return resolve(home, remote.slice(2))
  return resolve(cwd, remote)
}

/** The folder of the notes root that holds every remote's mirror; the root's own repository ignores it. */
export const MirrorsFolder = ".sync"

/** A mirror's folder name: readable, and distinct per remote and branch. */
export const mirrorName = (shownRemote: string, branch: string, hash: (text: string) => string): string => {
  const readable = `${shownRemote}-${branch}`.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(-48).replace(/^-+/, "")
  return `${readable === "" ? "remote" : readable}-${hash(`${shownRemote}\0${branch}`)}`
}

const ConflictCopyPattern = /\.conflict-\d{8}T\d{6}Z(-\d+)?\.md$/

/** A conflict copy is this machine's alone: never copied into a remote. */
export const isConflictCopy = (path: string): boolean => ConflictCopyPattern.test(path)

/** `plan.md` with the other side's text found at 2026-12-01 21:15:03 UTC: `plan.conflict-20261201T211503Z.md` (`-2`, … when taken). */
export const conflictCopyPath = (notePath: string, atMs: number, attempt: number): string => stampedName(notePath, "conflict", atMs, attempt)

/**
 * What copying a note into the mirror does, from the note's text here, its
 * text in the mirror and the text both had when they last agreed (`base`,
 * as hashes; undefined is "no such note"):
 * - `Same`: nothing to copy;
 * - `ToMirror`: only this machine changed it: the mirror takes it;
 * - `ToHome`: only the mirror changed it (a pull not yet copied back, the
 *   note having changed while it ran): the note takes the mirror's text;
 * - `Conflict`: both changed: the mirror takes this machine's text, and the
 *   mirror's is kept beside the note; a side that deleted it loses to the
 *   side that changed it, so no text is ever dropped.
 */
export type CopyIn = "Same" | "ToMirror" | "ToHome" | "Conflict"

export const copyInAction = (here: string | undefined, mirror: string | undefined, base: string | undefined): CopyIn => {
  if (here === mirror) return "Same"
  if (mirror === base) return "ToMirror"
  if (here === base || here === undefined) return "ToHome"
  return mirror === undefined ? "ToMirror" : "Conflict"
}

/**
 * What a pull did, in a few words, for its outcome in `/pi-context notes
 * sync`: `up to date`, or `2 notes pulled, 1 conflict kept beside its note`.
 */
export const pullDetail = (done: { readonly pulled: number; readonly retired: number; readonly conflicts: number }): string => {
  const parts = [
    ...(done.pulled === 0 ? [] : [`${plural(done.pulled, "note")} pulled`]),
    ...(done.retired === 0 ? [] : [`${plural(done.retired, "note")} deleted elsewhere, moved to the wastebasket`]),
    ...(done.conflicts === 0 ? [] : [`${plural(done.conflicts, "conflict kept beside its note", "conflicts kept beside their notes")}`])
  ]
  return parts.length === 0 ? "up to date" : parts.join(", ")
}

/** What a failed git run's words say went wrong, for doctor's fix. */
export const failureKind = (reason: "missing" | "failed", detail: string): SyncFailureKind => {
  if (reason === "missing") return "git-missing"
  if (/timed out after/.test(detail)) return "timeout"
  if (
    /Authentication failed|Permission denied|could not read (Username|Password)|terminal prompts disabled|Access denied|HTTP Basic|returned error: 40[13]|Host key verification failed/i
      .test(detail)
  ) return "auth"
  if (
    /does not appear to be a git repository|Could not resolve host|Could not resolve hostname|Connection refused|Network is unreachable|No route to host|unable to access|Connection timed out|Could not read from remote repository|not found|No such file or directory|unable to connect/i
      .test(detail)
  ) return "unreachable"
  return "other"
}

/** Git's words about a remote branch that does not exist yet: an empty remote, not a failure. */
export const isMissingBranch = (detail: string): boolean => /couldn't find remote ref/i.test(detail)

const describeKind: Readonly<Record<SyncFailureKind, string>> = {
  unreachable: "could not reach",
  auth: "was refused by",
  timeout: "timed out on",
  diverged: "found a rewritten history on",
  "git-missing": "needs git to reach",
  other: "failed on"
}

/** The one notice a sync problem gets until the remote works again; `remote` is already redacted. */
export const failureNotice = (remote: string, branch: string, kind: SyncFailureKind, rawDetail: string, backupRef?: string): string => {
  const where = `${remote} (${branch})`
  // Git's words come from the remote's side too (a hook's refusal): never a control character on the user's terminal.
  const detail = shownText(rawDetail)
  switch (kind) {
    case "diverged":
      return `pi-context: the history of ${where} was rewritten; nothing was merged or pushed, your notes are kept here` +
        `${backupRef === undefined ? "" : ` and saved as ${backupRef}`}. /pi-context notes sync now merges both sides (nothing dropped) and pushes.`
    case "git-missing":
      return "pi-context: notes sync needs git on PATH; your notes stay on this machine."
    case "auth":
      return `pi-context: notes sync ${describeKind[kind]} ${where} (${detail}); set up its credentials in git (ssh agent or a credential helper). Your notes stay here.`
    default:
      return `pi-context: notes sync ${describeKind[kind]} ${where} (${detail}); your notes stay here and sync at the next try.`
  }
}

export const conflictNotice = (remote: string, copies: ReadonlyArray<{ readonly shown: string }>): string => {
  const first = copies[0]?.shown ?? ""
  const more = copies.length > 1 ? ` and ${copies.length - 1} more` : ""
  return `pi-context: ${copies.length === 1 ? "a note" : `${copies.length} notes`} changed both here and on ${remote}: each keeps this machine's text, ` +
    `the other side's is beside it (${first}${more}). Edit the note and retire the copy to resolve.`
}

/**
 * The other side of a conflict: notes this machine had changed and pushed, whose text another machine kept its own
 * over. Nothing is lost (that machine holds this one's text as a conflict copy, and the sync's history has it here),
 * but the edit is no longer in the note, and the user should know where it is.
 */
export const overruledNotice = (
  remote: string,
  overruled: ReadonlyArray<{ readonly shown: string; readonly commit: string; readonly path: string }>,
  mirror: string
): string => {
  const first = overruled[0]!
  const more = overruled.length > 1 ? ` (and ${overruled.length - 1} more)` : ""
  return `pi-context: ${shownName(first.shown)}${more} changed both here and on another machine syncing with ${remote}, and that machine kept its own text: ` +
    `this machine's edit is no longer in the note. It is kept as a conflict copy on the other machine, and here in the sync's history ` +
    `(git -C ${shownText(mirror)} show ${first.commit}:${shownText(first.path)}).`
}

/** The modes of a regular file in git's trees: anything else (a link, a submodule) is never a note. */
const RegularModes: ReadonlySet<string> = new Set(["100644", "100755"])

/** A name a file system takes: 255 bytes. */
const NameByteLimit = 255

/**
 * Why a path of the remote's tree is no note this machine takes, or
 * undefined: a note is a regular `.md` file whose every name is an ordinary
 * one (no `..`, no git folder, no control or invisible character, none too
 * long for a file system). Such a path is skipped, and the rest of the sync
 * goes on.
 */
export const unsyncablePath = (path: string, mode = "100644"): string | undefined => {
  if (!RegularModes.has(mode)) return mode === "120000" ? "a symbolic link" : mode === "160000" ? "a submodule" : "not a regular file"
  if (!path.endsWith(".md")) return "not a note (.md)"
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return "a path that leaves its folder"
    if (isGitFolder(segment)) return "inside a git folder"
    if (hasUnshowableCharacter(segment)) return "a name with a control or invisible character"
    if (new TextEncoder().encode(segment).length > NameByteLimit) return `a name over ${NameByteLimit} bytes`
  }
  return undefined
}

/** A path of the remote's tree that is no note here, and why. */
export interface SkippedPath {
  readonly path: string
  readonly reason: string
}

/** `git ls-tree -r -z` of a commit: each note's path and blob; what is no note (`unsyncablePath`) goes to `skipped`. */
export const parseTree = (output: string, skipped?: Array<SkippedPath>): ReadonlyMap<string, string> => {
  const files = new Map<string, string>()
  for (const record of output.split("\0")) {
    const tab = record.indexOf("\t")
    if (tab < 0) continue
    const [mode = "", type, blob] = record.slice(0, tab).split(" ")
    const path = record.slice(tab + 1)
    if (type === "tree") continue
    const reason = type === "blob" ? unsyncablePath(path, mode) : "a submodule"
    if (reason === undefined && blob !== undefined) files.set(path, blob)
    else skipped?.push({ path, reason: reason ?? "unreadable" })
  }
  return files
}

/** How many skipped paths a notice names; the rest are counted. */
const SkippedShown = 3

/** The one notice of a pull that skipped entries of the remote: how many, a few of them as data, and why nothing else changed. */
export const skippedNotice = (remote: string, skipped: ReadonlyArray<SkippedPath>): string => {
  const shown = skipped.slice(0, SkippedShown).map((entry) => `${shownName(entry.path)} (${entry.reason})`).join(", ")
  const more = skipped.length > SkippedShown ? ` and ${skipped.length - SkippedShown} more` : ""
  return `pi-context: notes sync skipped ${skipped.length === 1 ? "an entry" : `${skipped.length} entries`} of ${remote} that ${skipped.length === 1 ? "is" : "are"} no note: ` +
    `${shown}${more}. Nothing was read or written through them; the other notes synced. Remove them from the remote to stop this notice.`
}

const NoBlob = /^0+$/

/** `git diff-tree -r -z --no-renames` (raw): each changed path with its blob before and after (undefined: absent). */
export const parseRawDiff = (output: string): ReadonlyArray<{ readonly path: string; readonly before: string | undefined; readonly after: string | undefined }> => {
  const fields = output.split("\0")
  const changes: Array<{ readonly path: string; readonly before: string | undefined; readonly after: string | undefined }> = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode = "", newMode = "", before, after] = fields[i]!.split(" ")
    const path = fields[i + 1]!
    if (before === undefined || after === undefined || path === "") continue
    // A link or a submodule on either side is no note: neither side's change to it reaches the homes.
    const noteOrNothing = (mode: string) => mode === "000000" || unsyncablePath(path, mode) === undefined
    if (!noteOrNothing(oldMode.replace(/^:/, "")) || !noteOrNothing(newMode)) continue
    changes.push({ path, before: NoBlob.test(before) ? undefined : before, after: NoBlob.test(after) ? undefined : after })
  }
  return changes
}

/**
 * The three sides of a merge restricted to the paths either side changed
 * since `base`: what `mergePlan` needs, from two short diffs instead of three
 * whole trees.
 */
export const sidesOfChanges = (
  ours: ReturnType<typeof parseRawDiff>,
  theirs: ReturnType<typeof parseRawDiff>
): { readonly base: ReadonlyMap<string, string>; readonly ours: ReadonlyMap<string, string>; readonly theirs: ReadonlyMap<string, string> } => {
  const base = new Map<string, string>()
  // Each side's blob after its change (undefined: deleted), with the blob before it into `base`: ours first, then theirs.
  const afterOf = (changes: ReturnType<typeof parseRawDiff>) => {
    const after = new Map<string, string | undefined>()
    for (const change of changes) {
      if (change.before !== undefined) base.set(change.path, change.before)
      after.set(change.path, change.after)
    }
    return after
  }
  const oursAfter = afterOf(ours)
  const theirsAfter = afterOf(theirs)
  const side = (changed: ReadonlyMap<string, string | undefined>) => {
    const blobs = new Map<string, string>()
    for (const path of new Set([...oursAfter.keys(), ...theirsAfter.keys()])) {
      const blob = changed.has(path) ? changed.get(path) : base.get(path)
      if (blob !== undefined) blobs.set(path, blob)
    }
    return blobs
  }
  return { base, ours: side(oursAfter), theirs: side(theirsAfter) }
}

/**
 * How the remote's side joins this machine's, note by note (files, never
 * lines: a note is one person's text): a note only the remote changed takes
 * its text (or goes, when the remote deleted it); a note both changed keeps
 * this machine's text and the remote's becomes a conflict copy; a note one
 * side deleted and the other changed is kept. `keepOurs`: the remote's
 * history was rewritten, so its deletions are not trusted either.
 */
export interface MergePlan {
  /** Notes that take the remote's text, added or changed there. */
  readonly fromTheirs: ReadonlyArray<string>
  /** Notes the remote deleted and this machine left as they were. */
  readonly deleted: ReadonlyArray<string>
  /** Notes both changed: this machine's text stays, the remote's blob is kept beside it. */
  readonly conflicts: ReadonlyArray<{ readonly path: string; readonly theirs: string }>
}

export const mergePlan = (
  base: ReadonlyMap<string, string>,
  ours: ReadonlyMap<string, string>,
  theirs: ReadonlyMap<string, string>,
  keepOurs: boolean
): MergePlan => {
  const fromTheirs: Array<string> = []
  const deleted: Array<string> = []
  const conflicts: Array<{ readonly path: string; readonly theirs: string }> = []
  for (const path of new Set([...ours.keys(), ...theirs.keys()])) {
    const b = base.get(path)
    const o = ours.get(path)
    const t = theirs.get(path)
    if (o === t || t === b) continue
    if (o === b || o === undefined) {
      if (t !== undefined) fromTheirs.push(path)
      else if (!keepOurs) deleted.push(path)
    } else if (t !== undefined) conflicts.push({ path, theirs: t })
  }
  return { fromTheirs, deleted, conflicts }
}
