import { Clock, Effect, Ref } from "effect"
import { piContextSetting } from "../identity.ts"
import { actionOf, renderTidyReport, type TidyAction, tidyInstructions, tidyLimitsOf, tidyPrompt, type TidyTool } from "./tidy.ts"
import { textReport } from "../../kernel/report.ts"
import { ok } from "../../kernel/toolOutcome.ts"
import { NotesVersions } from "../versions/NotesVersions.ts"
import { NotesHomes } from "../NotesHomes.ts"
import { NotesStore } from "../NotesStore.ts"
import { PiSession } from "../../kernel/PiSession.ts"
import { TidyModel, type TidyPass, TidyRefused } from "./TidyModel.ts"
import { changedNothing, notesToolHandlers } from "../notesHandlers.ts"
import { notice, report, subcommand } from "../../kernel/Subcommand.ts"
import { TidyReportsFolder } from "../maintenance.ts"

const reportStamp = (ms: number): string => new Date(ms).toISOString().replace(/[:.]/g, "-")

/**
 * `/pi-context tidy [--dry-run]`: a model pass over this session's five
 * homes (never another session's), between a commit before and a commit
 * after, with a plain-text report, or TidyRefused saying why it did not run.
 * A dry run records the pass's write calls without applying them.
 */
export const tidyCommand = (args: ReadonlyArray<string>, pass: TidyPass) =>
  Effect.gen(function*() {
    const unknown = args.filter((arg) => arg !== "--dry-run" && arg !== "dry-run")
    if (unknown.length > 0) {
      return yield* new TidyRefused({ message: `pi-context tidy: unknown argument "${unknown[0]}". Use /pi-context tidy or /pi-context tidy --dry-run.` })
    }
    const dryRun = args.length > 0
    const session = yield* PiSession
    // The pass edits the homes: not while this session's own run may be writing them.
    if (!(yield* session.isIdle)) return yield* new TidyRefused({ message: "pi-context: tidy runs while the agent is idle; run it again when this turn has finished." })
    const history = yield* NotesVersions
    const identity = yield* (yield* NotesHomes).identity
    const settings = yield* session.settings
    const modelSetting = piContextSetting(settings, "tidyModel")
    const modelRef = typeof modelSetting === "string" && modelSetting.trim() !== "" ? modelSetting.trim() : undefined
    const limits = tidyLimitsOf(piContextSetting(settings, "tidyTurnLimit"), piContextSetting(settings, "tidyTimeLimitSeconds"))
    const store = yield* NotesStore

    return yield* store.withTidyLock(identity.root, limits.timeMs, (takenOver) => Effect.gen(function*() {
      // Without its before and after commits a tidy could not be reviewed or undone: then only a dry run goes ahead.
      const before = dryRun ? undefined : yield* history.commitNow({ _tag: "Tidy", phase: "before" }).pipe(
        Effect.mapError((error) => new TidyRefused({ message: `${error.message} tidy needs the note versions to be undone; /pi-context tidy --dry-run still works.` }))
      )
      const actions = yield* Ref.make<ReadonlyArray<TidyAction>>([])
      const refused = yield* Ref.make(0)
      const tool = (name: TidyTool, params: unknown) =>
        Effect.gen(function*() {
          const action = actionOf(name, params)
          if (action === undefined) return yield* notesToolHandlers[name](params)
          if (dryRun) {
            yield* Ref.update(actions, (all) => [...all, action])
            return ok("Dry run: recorded, nothing was changed. Go on as if it had been applied.")
          }
          const outcome = yield* notesToolHandlers[name](params)
          // A call that left the note as it was is no change to report.
          if (outcome._tag === "Ok") yield* changedNothing(outcome) ? Effect.void : Ref.update(actions, (all) => [...all, action])
          else yield* Ref.update(refused, (n) => n + 1)
          return outcome
        })
      const result = yield* pass({ instructions: tidyInstructions(dryRun), prompt: tidyPrompt, modelRef, limits, tool })
      const after = dryRun ? undefined : yield* history.commitNow({ _tag: "Tidy", phase: "after" }).pipe(
        Effect.mapError((error) => new TidyRefused({ message: `pi-context tidy ran, but its changes could not be committed: ${error.message}` }))
      )
      const report = renderTidyReport({
        dryRun,
        actions: yield* Ref.get(actions),
        account: result._tag === "Done" ? result.account : `The pass stopped: ${result.reason}`,
        before,
        after,
        refused: yield* Ref.get(refused)
      })
      const shown = takenOver === undefined ? report : `${takenOver}\n${report}`
      const name = `${reportStamp(yield* Clock.currentTimeMillis)}${dryRun ? "-dry-run" : ""}.txt`
      const saved = yield* store.saveTidyReport(identity.root, name, `${shown}\n`)
      return saved === undefined ? `${shown}\nReport saved in the notes root: ${TidyReportsFolder}/${name}` : `${shown}\nThe report was not saved: ${saved}.`
    })).pipe(Effect.catchTag("TidyLockUnavailable", (error) => Effect.fail(new TidyRefused({ message: error.message }))))
  })

/**
 * `/pi-context tidy [--dry-run]`: the pass runs in the TidyModel's own Pi
 * session. Its report stays in the chat (the next notice would replace a
 * notice); a refusal is a warning.
 */
export const tidy = subcommand({
  name: "tidy",
  run: (args) =>
    TidyModel.use(({ pass }) =>
      Effect.match(tidyCommand(args, pass), {
        onSuccess: (text) => report(textReport(text)),
        onFailure: (refused) => notice(refused.message, "warning")
      })
    )
})
