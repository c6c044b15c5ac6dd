import { createHash } from "node:crypto"
import type { Home } from "../kernel/homes.ts"
import { defaultAgentName, slugify } from "../settings/checks.ts"

/**
 * Who is asking, resolved per call: the model (and so the `@model` home) can
 * change between two calls of the same session.
 */
export interface NotesIdentity {
  /** Absolute notes root. */
  readonly root: string
  readonly sessionId: string
  readonly projectKey: string
  readonly agentName: string
  readonly modelSlug: string
  /**
   * The project home's absolute directory when it is kept inside the project
   * (`<project>/.pi/notes`, setting `projectNotes: "in-project"` in a trusted
   * project); absent, the project home is under the root.
   */
  readonly projectDir?: string | undefined
}

export const NotesRootEnv = "PI_CONTEXT_NOTES_ROOT"

/** The `@model` home's name: the slug of the model id (the provider is not part of it). */
export const modelSlug = (modelId: string | undefined): string => slugify(modelId ?? "", "unknown-model")

export const agentSlug = (name: unknown): string => slugify(typeof name === "string" ? name : "", defaultAgentName)

/** Session ids become directory names; anything that could walk the tree is replaced. */
export const sessionSegment = (sessionId: string): string => {
  const safe = sessionId.replace(/[^A-Za-z0-9._-]/g, "_")
  return safe === "" || /^\.+$/.test(safe) ? `session-${safe.length}` : safe
}

const shortHash = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 8)

/** `<name>-<hash>` of the project root, so two checkouts named alike stay apart. */
export const projectKeyOf = (projectRoot: string): string => {
  const trimmed = projectRoot.replace(/[/\\]+$/, "")
  const base = trimmed.split(/[/\\]/).pop() ?? ""
  return `${slugify(base, "project")}-${shortHash(trimmed === "" ? "/" : trimmed)}`
}

/** Path segments of a home's directory, relative to the notes root. */
export const homeSegments = (identity: NotesIdentity, home: Home): ReadonlyArray<string> => {
  switch (home) {
    case "session":
      return ["sessions", sessionSegment(identity.sessionId)]
    case "project":
      return ["projects", identity.projectKey]
    case "user":
      return ["user"]
    case "agent":
      return ["agents", identity.agentName]
    case "model":
      return ["models", identity.modelSlug]
  }
}

/** The absolute directory of a home: under the root, except a project home kept inside the project. */
export const homeDirectory = (identity: NotesIdentity, home: Home, join: (...segments: ReadonlyArray<string>) => string): string =>
  home === "project" && identity.projectDir !== undefined ? identity.projectDir : join(identity.root, ...homeSegments(identity, home))

/** Where a home lives, as doctor and the boot name it: relative to the root, or in the project. */
export const homeLocation = (identity: NotesIdentity, home: Home): string =>
  home === "project" && identity.projectDir !== undefined ? `${InProjectNotesFolder.join("/")} in the project` : homeSegments(identity, home).join("/")

/** The folder of the notes root that holds every home's wastebasket. */
export const WastebasketFolder = "wastebasket"

/** Where a home's retired notes go: a mirror of the homes under `<root>/wastebasket/`, or beside an in-project home. */
export const wastebasketDirectory = (identity: NotesIdentity, home: Home, join: (...segments: ReadonlyArray<string>) => string): string =>
  home === "project" && identity.projectDir !== undefined
    ? join(identity.projectDir, "..", "notes-wastebasket")
    : join(identity.root, WastebasketFolder, ...homeSegments(identity, home))

/**
 * The name an earlier retired copy moves to when the same address is retired
 * again, so the wastebasket keeps every version: `plan.md` retired at
 * 2026-12-01 21:15:03 UTC becomes `plan.retired-20261201T211503Z.md`
 * (`-2`, `-3`, … when that name is taken too).
 */
export const earlierRetiredName = (name: string, retiredMs: number, attempt: number): string => stampedName(name, "retired", retiredMs, attempt)

/** A moment as a name can carry it: 2026-12-01 21:15:03 UTC is `20261201T211503Z`. */
export const compactStamp = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "")

/** `plan.md` as `plan.<label>-<stamp>.md`, with `-2`, `-3`, … for a later attempt when that name is taken. */
export const stampedName = (name: string, label: string, atMs: number, attempt: number): string =>
  `${name.endsWith(".md") ? name.slice(0, -3) : name}.${label}-${compactStamp(atMs)}${attempt <= 1 ? "" : `-${attempt}`}.md`

/** The project-relative folder of shared project notes. */
export const InProjectNotesFolder = [".pi", "notes"] as const

/** A folder the store writes, as the root it must stay inside and its path below that root. */
export interface AnchoredFolder {
  readonly base: string
  readonly segments: ReadonlyArray<string>
  /** The root as a sentence names it. */
  readonly belongsTo: "the notes root" | "the project"
}

/** The project of an in-project home: its folder is always `<project>/.pi/notes`. */
const inProjectBase = (projectDir: string, dirname: (path: string) => string): string => dirname(dirname(projectDir))

/** A home's folder, anchored at the notes root, or at the project for an in-project home. */
export const homeAnchor = (identity: NotesIdentity, home: Home, dirname: (path: string) => string): AnchoredFolder =>
  home === "project" && identity.projectDir !== undefined
    ? { base: inProjectBase(identity.projectDir, dirname), segments: InProjectNotesFolder, belongsTo: "the project" }
    : { base: identity.root, segments: homeSegments(identity, home), belongsTo: "the notes root" }

/** A home's wastebasket, anchored as `wastebasketDirectory` places it. */
export const wastebasketAnchor = (identity: NotesIdentity, home: Home, dirname: (path: string) => string): AnchoredFolder =>
  home === "project" && identity.projectDir !== undefined
    ? { base: inProjectBase(identity.projectDir, dirname), segments: [".pi", "notes-wastebasket"], belongsTo: "the project" }
    : { base: identity.root, segments: [WastebasketFolder, ...homeSegments(identity, home)], belongsTo: "the notes root" }

/**
 * Whether the project home lives inside the project: only when asked for
 * (`projectNotes: "in-project"`) and the project is trusted, since an
 * untrusted checkout's notes would reach the model's boot.
 */
export const projectNotesInProject = (setting: unknown, trusted: boolean): boolean => setting === "in-project" && trusted

/** Reads `pi-context.<key>` from Pi's merged settings without trusting its shape. */
export const piContextSetting = (settings: Readonly<Record<string, unknown>>, key: string): unknown => {
  const section = settings["pi-context"]
  return typeof section === "object" && section !== null ? (section as Record<string, unknown>)[key] : undefined
}

/**
 * Where the notes live: the env variable, else the setting, else under Pi's
 * agent dir. A relative value is taken relative to `cwd`; `~/` to `home`.
 */
export const resolveNotesRoot = (input: {
  readonly env: string | undefined
  readonly setting: unknown
  readonly agentDir: string
  readonly cwd: string
  readonly home: string | undefined
  readonly resolve: (...segments: ReadonlyArray<string>) => string
}): string => {
  const chosen = nonEmpty(input.env) ?? nonEmpty(input.setting)
  if (chosen === undefined) return input.resolve(input.agentDir, "pi-context", "notes")
  if ((chosen === "~" || chosen.startsWith("~/")) && input.home !== undefined) return input.resolve(input.home, chosen.slice(2))
  return input.resolve(input.cwd, chosen)
}

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined

/** What a `.git` file (a linked worktree or submodule) points at. */
export const gitdirOf = (dotGitFile: string): string | undefined => /^gitdir:\s*(.+?)\s*$/m.exec(dotGitFile)?.[1]
