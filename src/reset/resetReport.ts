import { Effect, Option } from "effect"
import { textReport } from "../kernel/report.ts"
import { sessionSignals, signalsReport } from "../window/signals.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { Window } from "../window/Window.ts"
import { notice, report, subcommand } from "../kernel/Subcommand.ts"

/** Every window of this branch with how its reset went, from the session's own entries: no model is called. */
const signalsNow = Effect.gen(function*() {
  const window = yield* Window
  const spans = yield* window.spans
  const facts = yield* window.windows
  const model = Option.getOrUndefined(yield* (yield* PiSession).model)
  // Pi's compaction keeps its reserve for the summary it writes: the budget a reset did not spend.
  return {
    signals: sessionSignals(spans, facts, (yield* (yield* Thresholds).policy).reserve.value),
    model: model === undefined ? undefined : { name: `${model.provider}/${model.id}`, inputPrice: model.inputPrice, contextWindow: model.contextWindow }
  }
})

/**
 * `/pi-context report`: the resets of this session, one line a window (did the
 * model checkpoint, pick up from its notes, redo work; did you repeat
 * yourself) and the totals; `--json` gives the same as one JSON object.
 */
export const resetReport = subcommand({
  name: "report",
  run: (args) =>
    args.length > 0 && !(args.length === 1 && args[0] === "--json")
      ? Effect.succeed(notice(`pi-context report: unknown argument "${args.join(" ")}". Use /pi-context report or /pi-context report --json.`, "warning"))
      : Effect.map(signalsNow, ({ model, signals }) =>
        args[0] === "--json" ? notice(JSON.stringify(signals)) : report(textReport(signalsReport(signals, model))))
})
