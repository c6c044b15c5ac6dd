import { quotedLines, shownName } from "../kernel/names.ts"
import { formatAge, formatBytes, type HomeMap, type HomeSnapshot, MapExcerptLimit, type NoteRow, noteRowLine, type NotesSnapshot } from "../notes/snapshot.ts"
import { estimateTokens } from "../kernel/tokenCount.ts"
import { textWindow } from "../kernel/textWindow.ts"
import { plural } from "../kernel/plural.ts"
import { formatAddress, type Home, homeLabel, Homes, homeOrder } from "../kernel/homes.ts"

/** Who wakes up in this window. */
export interface BootIdentity {
  readonly agentName: string
  /** The model as shown to it, e.g. `anthropic/claude-sonnet-4-5`. */
  readonly model: string
  readonly modelSlug: string
  readonly sessionId: string
  readonly rootWindowId: string
  readonly currentWindowId: string
  readonly previousWindowId: string | undefined
}

/** What a boot after a reset says about the window that ended and the notes' freshness. */
export interface BootContinuity {
  /** w-number of the window that just ended. */
  readonly previousOrdinal: number
  /** Whether a notes_write or notes_update of this session's home succeeded in it (decided by the lifecycle from durable entries). */
  readonly checkpointed: boolean
  /** The notes it wrote, in order (addresses; absent in a repair): without a checkpoint, those of the other homes are said by name. */
  readonly notesWritten?: ReadonlyArray<string>
  /** Each window of the branch, oldest first: w-number and start (epoch ms). Maps a note's mtime to its window. */
  readonly windowStarts: ReadonlyArray<{ readonly ordinal: number; readonly startedAt: number }>
  /**
   * The last windows that began at a reset and went on without the model
   * reading its notes (two in a row, by w-number): the boot says so first,
   * as a fact. Absent or empty: nothing to say.
   */
  readonly resumedWithoutNotes?: ReadonlyArray<number>
}

export interface BootInput {
  readonly identity: BootIdentity
  readonly snapshot: NotesSnapshot
  readonly budgetTokens: number
  /** Epoch ms the relative ages are measured from; pass the snapshot's `takenAt` for a stable boot. */
  readonly now: number
  /** Absent for a root boot or a repair: the boot then says nothing about the previous window. */
  readonly continuity?: BootContinuity
  /** The user's own instruction for every new window (`pi-context.afterReset`): near the top, marked as theirs, never cut. */
  readonly afterReset?: string | undefined
}

export interface Boot {
  readonly text: string
  readonly unavailableHomes: ReadonlyArray<Home>
  /** Note rows the budget left out (the boot says so and how to list them). */
  readonly omittedRows: number
  /** Files left out of the homes for their names (addresses as the model would write them, raw): the user is told. */
  readonly refused: ReadonlyArray<string>
}

/** How many names a boot or a notice quotes; the rest are counted. */
export const NamesQuoted = 3

/** Names (of notes, of files), quoted as data: a few of them and the count of the rest. */
export const quotedNamesText = (names: ReadonlyArray<string>): string => {
  const shown = names.slice(0, NamesQuoted).map(shownName)
  const rest = names.length - shown.length
  return `${shown.join(", ")}${rest > 0 ? ` and ${rest} more` : ""}`
}

const refusedLine = (home: HomeSnapshot & { readonly _tag: "Available" }): ReadonlyArray<string> => {
  const refused = home.refused ?? []
  if (refused.length === 0) return []
  const names = refused.map((relative) => formatAddress({ home: home.home, path: relative }))
  return [
    `Left out: ${plural(refused.length, "file")} whose name holds a control or invisible character (${quotedNamesText(names)}); ` +
    "no note can be named so. The user was told; leave them alone."
  ]
}

/** Rows shown per home before any budget cut. */
export const PocketQuota: Readonly<Record<Home, number>> = { session: 5, project: 3, user: 2, agent: 2, model: 2 }

/** The session's latest note is quoted up to this many code points: a checkpoint fits, a long note is cut with its offset. */
export const LatestExcerptLimit = 4000

const homeTitle: Readonly<Record<Home, string>> = {
  session: "This session",
  project: "This project",
  user: "The user",
  agent: "This agent",
  model: "This model"
}

const addressForm: Readonly<Record<Home, string>> = {
  session: "plan, a/b (no prefix)",
  project: "@project/...",
  user: "@user/...",
  agent: "@agent/...",
  model: "@model/..."
}

const homePurpose = (home: Home, identity: BootIdentity): string => {
  switch (home) {
    case "session":
      return "your checkpoint to resume from: goal, decisions, open questions, next step."
    case "project":
      return "decisions and facts about this project, for every session in it."
    case "user":
      return "the user's stated preferences and rules."
    case "agent":
      return `your methods and lessons as the agent "${identity.agentName}".`
    case "model":
      return `pitfalls of the model ${identity.modelSlug}.`
  }
}

const identityBlock = (identity: BootIdentity): ReadonlyArray<string> => [
  "## Context window",
  `Agent: ${identity.agentName}`,
  `Model: ${identity.model}`,
  `Session: ${identity.sessionId}`,
  `Root window: ${identity.rootWindowId}`,
  `Current window: ${identity.currentWindowId}`,
  ...(identity.previousWindowId === undefined ? [] : [`Previous window: ${identity.previousWindowId}`])
]

const resetLine = (identity: BootIdentity): string =>
  identity.previousWindowId === undefined
    ? "This is the first context window of this session."
    : "Your working memory was reset at the start of this window: earlier windows are not in your context, but nothing was deleted (the history tools read them) and your notes hold what you kept."

const homesBlock = (identity: BootIdentity): ReadonlyArray<string> => [
  "## Note homes",
  ...Homes.map((home) => `- ${addressForm[home]}: ${homePurpose(home, identity)}`),
  "Each home may keep a MAP.md indexing its notes; keep it current."
]

/**
 * What to do, in as few words as do it. The history tools are named only in
 * a window that began at a reset: before one they are not offered.
 */
const protocolBlock = (afterReset: boolean): ReadonlyArray<string> => [
  "## How to continue",
  "1. Resume from this session's MAP and latest note, quoted below when they fit (else read them: notes_read { \"address\": \"MAP\" }), then the notes they point to.",
  afterReset
    ? "2. Find notes with notes_list and notes_search; find what was said before the reset with history_search and history_read."
    : "2. Find notes with notes_list and notes_search.",
  "3. Keep notes current as you work (notes_write, notes_update).",
  "4. Before this window runs out (context_remaining), write your checkpoint into this session's notes and MAP, then call wipe_memory to go on in a fresh window."
]

/** The window (w-number) a moment falls in: the last one started at or before it. */
export const windowAt = (windowStarts: BootContinuity["windowStarts"], at: number): number | undefined => {
  let ordinal: number | undefined
  for (const start of windowStarts) if (start.startedAt <= at) ordinal = start.ordinal
  return ordinal
}

const checkpointLine = ({ previousOrdinal, checkpointed, notesWritten = [] }: BootContinuity): string => {
  if (checkpointed) return `The previous window ended with a checkpoint: notes updated in window w${previousOrdinal}.`
  // A note of another home is no checkpoint, but saying "no note was written" would have the model write it again.
  const ended = notesWritten.length === 0
    ? `w${previousOrdinal} ended without a checkpoint: no note was written in it, so`
    : `w${previousOrdinal} ended without a checkpoint in this session's notes (it wrote only ${quotedNamesText(notesWritten)}), so of its work`
  // A model-driven reset without a note carries no digest, so the line promises only what every reset carries.
  return `${ended} the message after this boot (with its digest, when the reset was automatic) is all that was kept; the history tools read w${previousOrdinal} in full.`
}

/** When this session's notes last changed, from the newest note's own timestamp. */
const freshnessLine = (continuity: BootContinuity, snapshot: NotesSnapshot, now: number): string => {
  const session = snapshot.homes.find((home) => home.home === "session")
  if (session === undefined || session._tag === "Unavailable") return "This session's notes could not be read, so when they were last updated is unknown."
  // The MAP counts: a checkpoint may be only an update of the MAP.
  const notes: ReadonlyArray<{ readonly address: string; readonly updatedMs: number }> = session.map === undefined ? session.recent : [...session.recent, session.map]
  const newest = notes.reduce<typeof notes[number] | undefined>((best, note) => (best === undefined || note.updatedMs > best.updatedMs ? note : best), undefined)
  if (newest === undefined) return "This session has no notes yet."
  const ordinal = windowAt(continuity.windowStarts, newest.updatedMs)
  // A note written while the previous window ran, though that window wrote none on this branch: a branch /tree left
  // behind, another Pi or a hand edit wrote it. Saying "in window wN" would contradict the line above.
  const notByIt = ordinal === continuity.previousOrdinal && !continuity.checkpointed
  const where = ordinal === undefined
    ? "before this session's first window"
    : notByIt
    ? `while w${ordinal} ran, though not by it (another branch of this session, another Pi, or an edit by hand)`
    : `in window w${ordinal}`
  return `This session's notes were last updated ${where}, ${formatAge(newest.updatedMs, now)} (${shownName(newest.address)}).`
}

const continuityLines = (input: BootInput): ReadonlyArray<string> =>
  input.continuity === undefined ? [] : [checkpointLine(input.continuity), freshnessLine(input.continuity, input.snapshot, input.now)]

interface Selection {
  readonly rows: ReadonlySet<NoteRow>
  /** Homes whose MAP is shown only as a pointer. */
  readonly mapPointers: ReadonlySet<Home>
}

/** A note quoted line by line (`> `), cut at `limit` code points with the offset to read on from. */
const quotedNote = (label: string, note: HomeMap, limit: number, pointerOnly: boolean): ReadonlyArray<string> => {
  const { address, body, bytes } = note
  if (pointerOnly) return [`${label}: ${shownName(address)} (${formatBytes(bytes)}), left out for the budget; read it with notes_read { "address": ${JSON.stringify(address)} }.`]
  const excerpt = textWindow(body.trimEnd(), 0, limit)
  const quoted = quotedLines(excerpt.text)
  const cut = excerpt.nextOffset === undefined
    ? []
    : [`(${label} cut at ${excerpt.nextOffset} of ${excerpt.total} characters; read on with notes_read { "address": ${JSON.stringify(address)}, "offset": ${excerpt.nextOffset} })`]
  return [`${label}: ${shownName(address)}`, ...quoted, ...cut]
}

const mapLines = (home: HomeSnapshot & { readonly _tag: "Available" }, pointerOnly: boolean): ReadonlyArray<string> =>
  home.map === undefined ? [] : quotedNote("MAP", home.map, MapExcerptLimit, pointerOnly)

/** This session's latest note, whole when it fits: what the model resumes from, in the request itself. */
const latestLines = (home: HomeSnapshot & { readonly _tag: "Available" }, pointerOnly: boolean): ReadonlyArray<string> =>
  home.latest === undefined ? [] : quotedNote("Latest note", home.latest, LatestExcerptLimit, pointerOnly)

const homeSection = (home: HomeSnapshot, selection: Selection, now: number): ReadonlyArray<string> => {
  const heading = `### ${homeTitle[home.home]} (${addressForm[home.home]})`
  const retry = `notes_list { "home": "${homeLabel(home.home)}" }`
  if (home._tag === "Unavailable") {
    return [heading, `Unavailable: the home could not be read (${home.reason}). Its notes are not shown; retry with ${retry}.`]
  }
  const rows = home.recent.filter((row) => selection.rows.has(row))
  if (home.map === undefined && home.noteCount === 0) return [heading, "No notes yet.", ...refusedLine(home)]
  const count = rows.length < home.noteCount ? ` (${rows.length} of ${home.noteCount}; ${retry} lists all)` : ""
  return [
    heading,
    ...mapLines(home, selection.mapPointers.has(home.home)),
    ...latestLines(home, selection.mapPointers.has(home.home)),
    ...(home.noteCount === 0 ? [] : [`Recent notes${count}:`, ...rows.map((row) => noteRowLine(row, now))]),
    ...refusedLine(home)
  ]
}

/** A fact the model should know first: it went on twice without its notes. Stated, not scolded. */
const resumedWithoutNotesLine = (continuity: BootContinuity | undefined): ReadonlyArray<string> => {
  const windows = continuity?.resumedWithoutNotes ?? []
  return windows.length < 2
    ? []
    : [`In ${windows.map((w) => `w${w}`).join(" and ")} you went on without reading your notes after the reset. This time, start from them.`]
}

/** The user's instruction, quoted as theirs: it is their words for every window, not the template's. */
const userInstructionBlock = (text: string): string =>
  ["## From the user, for every new window (pi-context.afterReset)", ...quotedLines(text)].join("\n")

/** A home with nothing to show: no MAP, no notes, nothing left out. */
const isEmpty = (home: HomeSnapshot): boolean =>
  home._tag === "Available" && home.map === undefined && home.noteCount === 0 && (home.refused ?? []).length === 0

/** Each home's section, the empty ones said in one line. */
const indexSections = (snapshot: NotesSnapshot, selection: Selection, now: number): ReadonlyArray<string> => {
  const empty = snapshot.homes.filter(isEmpty)
  const emptyLine = empty.length === 0 ? [] : [`No notes yet in: ${empty.map((home) => homeTitle[home.home].toLowerCase()).join(", ")}.`]
  return [...snapshot.homes.filter((home) => !isEmpty(home)).map((home) => homeSection(home, selection, now).join("\n")), ...emptyLine]
}

const render = (input: BootInput, selection: Selection, omittedRows: number): string => {
  const { identity, snapshot, now, budgetTokens } = input
  const omissions = omittedRows > 0 || selection.mapPointers.size > 0
    ? [
      `${plural(omittedRows, "row")} left out and ${selection.mapPointers.size} MAP ${selection.mapPointers.size === 1 ? "excerpt" : "excerpts"} shortened to fit the boot budget of ${budgetTokens} tokens (rule: the oldest rows go first, then MAP excerpts from @model back to the session). List them with notes_list.`
    ]
    : []
  const sections = [
    identityBlock(identity).join("\n"),
    ...resumedWithoutNotesLine(input.continuity),
    ...(input.afterReset === undefined ? [] : [userInstructionBlock(input.afterReset)]),
    [resetLine(identity), ...continuityLines(input)].join("\n"),
    homesBlock(identity).join("\n"),
    protocolBlock(identity.previousWindowId !== undefined).join("\n"),
    ["## Notes index", ...omissions].join("\n"),
    ...indexSections(snapshot, selection, now)
  ]
  return `${sections.join("\n\n")}\n`
}

/** Which row the budget gives up first: the oldest, then the later home, then the later address. */
const dropOrder = (a: NoteRow, b: NoteRow): number =>
  a.updatedMs - b.updatedMs || homeOrder(b.home) - homeOrder(a.home) || (a.address < b.address ? 1 : a.address > b.address ? -1 : 0)

/** Homes whose MAP excerpt is shortened first when rows alone do not fit. */
const mapDropOrder: ReadonlyArray<Home> = [...Homes].reverse()

/**
 * The hidden boot of a window. Pure: the same input renders the same text,
 * byte for byte. The identity, reset and continuity lines, homes and
 * protocol are always kept; only index rows and MAP excerpts yield to the
 * budget, visibly.
 */
export const renderBoot = (input: BootInput): Boot => {
  const available = input.snapshot.homes.flatMap((home) => (home._tag === "Available" ? [home] : []))
  const candidates = available.flatMap((home) => home.recent.slice(0, PocketQuota[home.home]))
  const dropQueue = [...candidates].sort(dropOrder)
  const rows = new Set(candidates)
  const mapPointers = new Set<Home>()
  const mapQueue = mapDropOrder.filter((home) => available.some((h) => h.home === home && (h.map !== undefined || h.latest !== undefined)))
  let text = render(input, { rows, mapPointers }, 0)
  while (estimateTokens(text) > input.budgetTokens) {
    const row = dropQueue.shift()
    if (row !== undefined) rows.delete(row)
    else {
      const home = mapQueue.shift()
      if (home === undefined) break
      mapPointers.add(home)
    }
    text = render(input, { rows, mapPointers }, candidates.length - rows.size)
  }
  return {
    text,
    unavailableHomes: input.snapshot.homes.flatMap((home) => (home._tag === "Unavailable" ? [home.home] : [])),
    omittedRows: candidates.length - rows.size,
    refused: available.flatMap((home) => (home.refused ?? []).map((relative) => formatAddress({ home: home.home, path: relative })))
  }
}
