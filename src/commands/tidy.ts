import { hostname } from "node:os"
import { Clock, Effect, FileSystem, Path, Ref, Schema } from "effect"
import { piContextSetting } from "../domain/notes/identity.ts"
import {
  actionOf,
  renderTidyReport,
  type TidyAction,
  tidyInstructions,
  tidyPrompt,
  type TidyTool
} from "../domain/notes/tidy.ts"
import { textReport } from "../domain/report.ts"
import { ok } from "../domain/toolOutcome.ts"
import { NotesHistory } from "../services/NotesHistory.ts"
import { PiSession } from "../services/PiSession.ts"
import { notesIdentity } from "../layers/notes/identity.ts"
import { TidyModel, type TidyPass } from "../services/TidyModel.ts"
import { notesToolHandlers } from "../tools/notes.ts"
import { notice, report, subcommand } from "./Subcommand.ts"

/** What the pass ran into, as the sentence the user reads. */
export class TidyRefused extends Schema.TaggedError<TidyRefused>()("TidyRefused", { message: Schema.String }) {}

const LockName = ".tidy.lock"

const LockOwner = Schema.Struct({ pid: Schema.Number, host: Schema.String })
const decodeLockOwner = Schema.decodeUnknownOption(Schema.fromJsonString(LockOwner))

/** EPERM means the process exists but belongs to someone else. */
const processIsAlive = (pid: number): Effect.Effect<boolean> =>
  Effect.try({ try: () => process.kill(pid, 0), catch: (error) => (error as { readonly code?: unknown }).code }).pipe(
    Effect.as(true),
    Effect.catch((code) => Effect.succeed(code === "EPERM"))
  )

/**
 * One tidy per notes root at a time, for as long as it runs (a model pass
 * takes minutes, longer than a note lock's staleness): a lock left by a
 * process that is gone is taken over.
 */
const withTidyLock = <A, E, R>(root: string, use: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(root, LockName)
    const owner = JSON.stringify({ pid: process.pid, host: hostname() })
    const take = fs.writeFileString(file, owner, { flag: "wx" })
    const taken = yield* Effect.result(Effect.andThen(fs.makeDirectory(root, { recursive: true }), take))
    if (taken._tag === "Failure") {
      const held = decodeLockOwner(yield* fs.readFileString(file).pipe(Effect.orElseSucceed(() => "")))
      // A lock another machine holds is respected; an unreadable one, or one whose process is gone, is taken over.
      const alive = held._tag === "Some" && (held.value.host !== hostname() || (yield* processIsAlive(held.value.pid)))
      if (alive) return yield* new TidyRefused({ message: "pi-context: another tidy is running on these notes; try again when it has finished." })
      yield* Effect.ignore(fs.remove(file))
      yield* take.pipe(Effect.mapError(() => new TidyRefused({ message: "pi-context: another tidy just started on these notes; try again when it has finished." })))
    }
    return yield* Effect.ensuring(use, Effect.ignore(fs.remove(file)))
  })

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
    const history = yield* NotesHistory
    const identity = yield* notesIdentity()
    const modelSetting = piContextSetting(yield* session.settings, "tidyModel")
    const modelRef = typeof modelSetting === "string" && modelSetting.trim() !== "" ? modelSetting.trim() : undefined

    return yield* withTidyLock(identity.root, Effect.gen(function*() {
      // Without its before and after commits a tidy could not be reviewed or undone: then only a dry run goes ahead.
      const before = dryRun ? undefined : yield* history.commitNow({ _tag: "Tidy", phase: "before" }).pipe(
        Effect.mapError((error) => new TidyRefused({ message: `${error.message} tidy needs the notes history to be undone; /pi-context tidy --dry-run still works.` }))
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
          if (outcome._tag === "Ok") yield* Ref.update(actions, (all) => [...all, action])
          else yield* Ref.update(refused, (n) => n + 1)
          return outcome
        })
      const result = yield* pass({ instructions: tidyInstructions(dryRun), prompt: tidyPrompt, modelRef, tool })
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
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = path.join(identity.root, "tidy-reports")
      const file = path.join(dir, `${reportStamp(yield* Clock.currentTimeMillis)}${dryRun ? "-dry-run" : ""}.txt`)
      const saved = yield* Effect.result(Effect.andThen(fs.makeDirectory(dir, { recursive: true }), fs.writeFileString(file, `${report}\n`)))
      return saved._tag === "Success" ? `${report}\nReport saved in the notes root: tidy-reports/${path.basename(file)}` : report
    }))
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
