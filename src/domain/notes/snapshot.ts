import type { Home } from "./address.ts"

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
