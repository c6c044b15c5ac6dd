import type { FauxProviderRegistration } from "@earendil-works/pi-ai/compat"
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"

export const fauxModelId = "faux-1"

/**
 * Makes a registered faux provider a Pi provider with one model, `faux/faux-1`,
 * so sessions, the SDK and the CLI can select it. Shared by the SDK harness,
 * the e2e fixture and the load bench.
 */
export const registerFauxModel = (
  pi: ExtensionAPI,
  faux: Pick<FauxProviderRegistration, "api">,
  contextWindow = 200_000
): void => {
  pi.registerProvider("faux", {
    baseUrl: "http://127.0.0.1:9",
    apiKey: "faux-key",
    api: faux.api,
    models: [{
      id: fauxModelId,
      name: "Faux 1",
      reasoning: false,
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow,
      maxTokens: 4_000
    }]
  })
}
