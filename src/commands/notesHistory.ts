import { Effect } from "effect"
import { NotesHistory } from "../services/NotesHistory.ts"

export const notesHistoryUsage = [
  "pi-context notes history:",
  "  /pi-context notes history [address|@home]   the commits of a note, a home, or every home",
  "  /pi-context notes diff <commit> [address]    what a commit changed",
  "  /pi-context notes restore <address> <commit> bring a note back to that version (a new commit)",
  "  /pi-context notes restore <@home|all> <commit> bring a home, or every home, back to that commit"
].join("\n")

/** `/pi-context notes history|diff|restore …`: plain text for the command's notice. */
export const notesHistoryCommand = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const history = yield* NotesHistory
    const [sub, first, second, ...extra] = args
    const run = (() => {
      if (extra.length > 0) return undefined
      switch (sub) {
        case "history":
          return second === undefined ? history.history(first) : undefined
        case "diff":
          return first === undefined ? undefined : history.diff(first, second)
        case "restore":
          return first === undefined || second === undefined ? undefined : history.restore(first, second)
        default:
          return undefined
      }
    })()
    if (run === undefined) return notesHistoryUsage
    return yield* run.pipe(Effect.catchTag("HistoryUnavailable", (error) => Effect.succeed(error.message)))
  })
