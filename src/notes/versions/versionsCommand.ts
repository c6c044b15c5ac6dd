import { Effect } from "effect"
import { textReport } from "../../kernel/report.ts"
import { NotesVersions } from "./NotesVersions.ts"
import { notice, type Reply, report } from "../../kernel/Subcommand.ts"

export const notesVersionsUsage = [
  "pi-context notes versions:",
  "  /pi-context notes versions [address|@home]  the commits of a note, a home, or every home (or: notes history)",
  "  /pi-context notes diff <commit> [address]    what a commit changed",
  "  /pi-context notes restore <address> <commit> bring a note back to that version (a new commit)",
  "  /pi-context notes restore <@home|all> <commit> bring a home, or every home, back to that commit"
].join("\n")

/**
 * `/pi-context notes versions|diff|restore …` (`history`, the older word, still lists the versions). A listing or a diff is a report,
 * so it stays in the chat when the next notice comes; a restore's outcome, a
 * refusal and the usage are notices.
 */
export const notesVersionsCommand = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const history = yield* NotesVersions
    const [sub, first, second, ...extra] = args
    const run = (() => {
      if (extra.length > 0) return undefined
      switch (sub) {
        case "versions":
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
    if (run === undefined) return notice(notesVersionsUsage)
    const shown = (text: string): Reply<never> =>
      sub === "versions" || sub === "history"
        ? report(textReport(text))
        : sub === "diff"
        ? report({ kind: "text", title: `pi-context notes diff ${[first, second].filter((word) => word !== undefined).join(" ")}`, text })
        : notice(text)
    return yield* run.pipe(Effect.map(shown), Effect.catchTag("VersionsUnavailable", (error) => Effect.succeed(notice(error.message, "warning"))))
  })
