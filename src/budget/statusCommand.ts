import { Effect } from "effect"
import { windowManager } from "../window/onOff.ts"
import { textReport } from "../kernel/report.ts"
import { overheadLine, requestOverhead } from "./overhead.ts"
import { windowBootText } from "../window/signals.ts"
import { ToolName } from "../kernel/protocol.ts"
import { Budget } from "./Budget.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { describeTrace, Trace } from "../trace/Trace.ts"
import { Window } from "../window/Window.ts"
import { packageVersion } from "../version.ts"
import { report, subcommand } from "../kernel/Subcommand.ts"

const statusText = Effect.gen(function*() {
  const windows = yield* Window
  const window = yield* windows.current
  const on = yield* windows.enabled
  const manager = windowManager({
    enabled: on,
    automaticReset: (yield* (yield* Thresholds).policy).automaticReset.value,
    branchHasReset: yield* windows.hasReset
  })
  const session = yield* PiSession
  const overhead = requestOverhead({
    toolsJson: yield* session.offeredToolsJson(Object.values(ToolName)),
    bootText: windowBootText(window)
  })
  return [
    `pi-context ${packageVersion}: ${on ? "on" : "off"}`,
    `window: w${window.ordinal} (id ${window.id}, for the history tools)`,
    overheadLine(overhead),
    `window managed by: ${manager}`,
    describeTrace(yield* (yield* Trace).status),
    ...(yield* (yield* Budget).statusReport)
  ].join("\n")
})

/**
 * `/pi-context status`: version, window, usage, settings and trace file. A
 * report, so Pi's TUI draws it at the chat's width: the trace path wraps at
 * its separators, never inside a name.
 */
export const status = subcommand({ name: "status", run: () => Effect.map(statusText, (text) => report(textReport(text))) })
