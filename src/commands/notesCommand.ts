import { Effect, Option } from "effect"
import { pendingConflicts } from "../notes/sync/syncView.ts"
import { shownName, shownText } from "../kernel/names.ts"
import { formatAge, formatBytes, notesCounted } from "../notes/snapshot.ts"
import { windowBootText } from "../window/signals.ts"
import { NotesHomes } from "../notes/NotesHomes.ts"
import { describeStoreFailure, type StoreFailure } from "../notes/notesStoreFailure.ts"
import { Window } from "../window/Window.ts"
import { notesVersionsCommand } from "../notes/versions/versionsCommand.ts"
import { NotesVersions } from "../notes/versions/NotesVersions.ts"
import { notesSyncCommand, readSyncStates } from "../notes/sync/syncCommand.ts"
import { notice, type Reply, report, type Step, subcommand } from "../kernel/Subcommand.ts"
import type { NotesOverview } from "../kernel/report.ts"

/** How many notes the overview lists, newest first. */
export const OverviewRows = 30

/** `/pi-context notes`: the notes root, the count per home, sync conflicts waiting for the user, and the newest notes with title, size and age. */
const notesOverview = Effect.gen(function*() {
  const notes = yield* NotesHomes
  const identity = yield* notes.identity
  const snapshot = yield* notes.snapshot()
  const listed = yield* notes.list({ limit: OverviewRows }).pipe(
    Effect.orElseSucceed(() => ({ rows: [], nextCursor: undefined, unavailable: [] }))
  )
  const now = snapshot.takenAt
  const total = snapshot.homes.reduce((sum, home) => sum + notesCounted(home), 0)
  const overview: NotesOverview = {
    root: identity.root,
    homes: snapshot.homes.map((home) =>
      home._tag === "Available" ? { home: home.home, count: notesCounted(home) } : { home: home.home, count: null, reason: home.reason }
    ),
    rows: listed.rows.map((row) => ({ address: row.address, title: row.title, size: formatBytes(row.bytes), age: formatAge(row.updatedMs, now) })),
    more: Math.max(0, total - listed.rows.length),
    conflicts: pendingConflicts(Option.getOrElse(yield* readSyncStates, () => [])),
    versions: yield* (yield* NotesVersions).offered
  }
  return overview
})

/** One note's text, or why it cannot be read. */
const noteText = (address: string) =>
  NotesHomes.use((homes) => homes.read(address)).pipe(
    Effect.map((note) => ({ ok: true as const, address: note.address, body: note.body, size: formatBytes(note.bytes) })),
    Effect.catch((error) => Effect.succeed({ ok: false as const, address, body: `pi-context: cannot read ${shownName(address)}: ${errorText(error)}.`.replace(/\.\.$/, "."), size: "" }))
  )

/** Writes a note the user edited in Pi's editor. */
const saveNote = (address: string, body: string) =>
  NotesHomes.use((homes) => homes.write(address, body)).pipe(
    Effect.map((written) => `pi-context: saved ${shownName(written.address)} (${formatBytes(written.bytes)}).`),
    Effect.catch((error) => Effect.succeed(`pi-context: could not save ${shownName(address)}: ${errorText(error)}.`.replace(/\.\.$/, ".")))
  )

/** A store failure as a user reads it: the sentence the model gets, without its tool hints. */
const errorText = (error: StoreFailure): string =>
  error._tag === "NoteNotFound"
    ? `there is no note at ${shownName(error.address)}; /pi-context notes lists them`
    : describeStoreFailure(error).text

/** "What the model got": the current window's boot, as it was written into the session and sent. */
const currentBoot = Effect.gen(function*() {
  const window = yield* (yield* Window).current
  // Before the window's first reply no request carried it yet: it is what the next one will.
  return { ordinal: window.ordinal, text: windowBootText(window), sent: window.tally.turns > 0 }
})

type Needs =
  | Effect.Services<typeof notesOverview>
  | Effect.Services<typeof currentBoot>
  | Effect.Services<ReturnType<typeof notesVersionsCommand>>
  | Effect.Services<ReturnType<typeof notesSyncCommand>>

const usage = "pi-context notes: /pi-context notes [read <address> | edit <address> | boot | versions | diff | restore | sync [now]]"

/** The words after `notes` that belong to the note versions; anything else browses the notes. */
const versionsWords: ReadonlySet<string> = new Set(["versions", "history", "diff", "restore"])

const showNote = (address: string): Step<Needs> =>
  Effect.map(noteText(address), (note): Reply<Step<Needs>> =>
    note.ok ? report({ kind: "text", title: `${shownName(note.address)} · ${note.size}`, text: note.body }) : notice(note.body, "warning"))

const showBoot: Step<Needs> = Effect.map(currentBoot, (boot): Reply<Step<Needs>> =>
  boot.text === undefined
    ? notice(`pi-context: window w${boot.ordinal} has no boot on this branch.`, "warning")
    : report({
      kind: "text",
      title: boot.sent
        ? `What the model got: the boot of w${boot.ordinal}, as sent`
        : `What the model will get: the boot of w${boot.ordinal}, not sent yet (the window's first request carries it)`,
      text: boot.text
    }))

/** The edited text, ending in a newline when the note did. */
const keepFinalNewline = (before: string, edited: string): string => (before.endsWith("\n") && !edited.endsWith("\n") ? `${edited}\n` : edited)

/** Opens a note in Pi's editor; a changed text is written back to the note. */
const editNote = (address: string): Step<Needs> =>
  Effect.map(noteText(address), (note): Reply<Step<Needs>> =>
    !note.ok ? notice(note.body, "warning") : {
      _tag: "Edit",
      title: `${shownName(note.address)} (save to write it back)`,
      text: note.body,
      // Pi's editor gives the text back without its final newline: that alone is no change, and a change keeps it.
      save: (edited) =>
        edited === undefined || edited.trimEnd() === note.body.trimEnd()
          ? Effect.succeed(notice(`pi-context: ${shownName(note.address)} unchanged.`))
          : Effect.map(saveNote(note.address, keepFinalNewline(note.body, edited)), (text) => notice(text))
    })

/** The overview, then (in Pi's TUI) a picker that opens a note to read or edit, or shows the current window's boot. */
const browse: Step<Needs> = Effect.map(notesOverview, (overview): Reply<Step<Needs>> =>
  report({ kind: "notes", overview }, {
    _tag: "Pick",
    title: "pi-context notes: open one",
    choices: [
      { label: "What the model got (the boot of this window)", next: showBoot },
      ...overview.rows.map((row) => ({
        label: `${shownName(row.address)} · ${row.size} · ${row.age}${row.title === "" ? "" : ` · ${shownText(row.title)}`}`,
        next: Effect.succeed<Reply<Step<Needs>>>({
          _tag: "Pick",
          title: row.address,
          choices: [{ label: "Read it here", next: showNote(row.address) }, { label: "Open it in the editor", next: editNote(row.address) }]
        })
      }))
    ]
  }))

/**
 * `/pi-context notes`: the overview (counts per home, the notes root, the
 * newest notes), `read|edit <address>`, `boot`; `history|diff|restore` are
 * the note versions' words, `sync [now]` the notes sync's.
 */
export const notes = subcommand({
  name: "notes",
  run: (args): Step<Needs> => {
    const [sub, address, ...extra] = args
    if (sub !== undefined && versionsWords.has(sub)) return notesVersionsCommand(args)
    if (sub === "sync") return notesSyncCommand(args.slice(1))
    if (extra.length > 0) return Effect.succeed(notice(usage, "warning"))
    if (sub === "boot" && address === undefined) return showBoot
    if (sub === "read" && address !== undefined) return showNote(address)
    if (sub === "edit" && address !== undefined) return editNote(address)
    if (sub !== undefined) return Effect.succeed(notice(usage, "warning"))
    return browse
  }
})
