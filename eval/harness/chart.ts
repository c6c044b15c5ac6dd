/** The chart: tokens sent per model call over one run of each arm, turnovers marked. Drawn by Vega-Lite as SVG. */
import * as vega from "vega"
import * as vegaLite from "vega-lite"
import type { RunResult } from "./types.ts"

/** The run each arm is drawn with: the first task and seed every arm ran. */
const chosenRuns = (results: ReadonlyArray<RunResult>): ReadonlyArray<RunResult> => {
  const first = results.find((result) => result.calls.length > 0)
  if (first === undefined) return []
  return [...new Set(results.map((result) => result.arm))].flatMap((arm) => results.find((run) => run.arm === arm && run.task === first.task && run.seed === first.seed) ?? [])
}

export const renderChart = async (results: ReadonlyArray<RunResult>): Promise<string> => {
  const runs = chosenRuns(results)
  const points = runs.flatMap((run) => run.calls.map((point) => ({ arm: run.arm, call: point.call, sent: point.sent })))
  const turnovers = runs.flatMap((run) => run.calls.filter((point) => point.turnoverBefore !== undefined).map((point) => ({ arm: run.arm, call: point.call, sent: point.sent, kind: point.turnoverBefore })))
  const first = runs[0]
  const subtitle = first === undefined ? "no runs" : `${first.task}, seed ${first.seed} · ${first.versions.model}${first.scripted ? " (scripted agent)" : ""} · ${first.window}-token window · ▼ turnover`
  const spec: vegaLite.TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: "Tokens sent per model call", subtitle },
    width: 860,
    height: 300,
    layer: [
      {
        data: { values: points },
        mark: { type: "line", strokeWidth: 1.5 },
        encoding: {
          x: { field: "call", type: "quantitative", title: "model call" },
          y: { field: "sent", type: "quantitative", title: "tokens sent" },
          color: { field: "arm", type: "nominal", title: "arm" }
        }
      },
      {
        data: { values: turnovers },
        mark: { type: "point", shape: "triangle-down", size: 70, filled: true },
        encoding: {
          x: { field: "call", type: "quantitative" },
          y: { field: "sent", type: "quantitative" },
          color: { field: "arm", type: "nominal" },
          shape: { field: "kind", type: "nominal", title: "turnover" }
        }
      }
    ]
  }
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: "none" })
  const svg = await view.toSVG()
  view.finalize()
  return svg
}
