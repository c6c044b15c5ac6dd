import type { Home } from "../kernel/homes.ts"
import { shownName, shownText } from "../kernel/names.ts"

/** One note as a listing or the boot shows it: never its body. */
export interface NoteRow {
  readonly home: Home
  /** The address as the model writes it (`plan.md`, `@project/db.md`). */
  readonly address: string
  readonly bytes: number
  /** Last modification, epoch milliseconds. */
  readonly updatedMs: number
  /** First heading or first line; empty when the note was not opened. */
  readonly title: string
}

export interface HomeMap {
  readonly address: string
  readonly body: string
  readonly bytes: number
  /** Last modification, epoch milliseconds. */
  readonly updatedMs: number
}

export type HomeSnapshot =
  | {
    readonly _tag: "Available"
    readonly home: Home
    /** Where the home lives, relative to the notes root (`projects/<key>`). */
    readonly location: string
    readonly map: HomeMap | undefined
    /** The most recent notes other than the MAP, newest first. */
    readonly recent: ReadonlyArray<NoteRow>
    /** Every note of the home other than the MAP. */
    readonly noteCount: number
    /**
     * This session's home only: its most recently updated note other than the
     * MAP, with its body (the checkpoint a model resumes from, as a rule), so
     * that a new window's first request holds it.
     */
    readonly latest?: HomeMap
    /**
     * Files left out of the home (paths inside it), their names holding a control
     * or invisible character: such a name could forge text wherever it is shown.
     */
    readonly refused?: ReadonlyArray<string>
  }
  | {
    readonly _tag: "Unavailable"
    readonly home: Home
    readonly location: string
    readonly reason: string
  }

/** The five homes read once, closed: rendering it never touches the disk. */
export interface NotesSnapshot {
  readonly takenAt: number
  /** Always the five homes, in `Homes` order. */
  readonly homes: ReadonlyArray<HomeSnapshot>
}

/**
 * A home's note count, the one every view gives (the overview, the divider, doctor, status): every note
 * `notes_list` lists, its MAP.md among them.
 */
export const notesCounted = (home: HomeSnapshot): number => (home._tag === "Available" ? home.noteCount + (home.map === undefined ? 0 : 1) : 0)

/** A MAP longer than this (code points) is cut, with the offset to read on from. */
export const MapExcerptLimit = 1500

export const formatBytes = (bytes: number): string => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`)

/** A relative age measured from `now`, never from the wall clock. */
export const formatAge = (updatedMs: number, now: number): string => {
  const seconds = Math.floor((now - updatedMs) / 1000)
  if (seconds < 60) return "just now"
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours} h ago`
  const days = Math.floor(hours / 24)
  if (days < 60) return `${days} d ago`
  return `on ${new Date(updatedMs).toISOString().slice(0, 10)}`
}

/** One note as the boot and notes_list show it: address, title, size and age. */
export const noteRowLine = (row: NoteRow, now: number): string => {
  const title = row.title === "" ? "" : ` · "${shownText(row.title)}"`
  return `- ${shownName(row.address)}${title} · ${formatBytes(row.bytes)} · updated ${formatAge(row.updatedMs, now)}`
}
