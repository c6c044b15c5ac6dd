import { createServer, type IncomingMessage, type ServerResponse } from "node:http"

/** An OpenAI-compatible endpoint on localhost that streams one short reply and reports its usage (`promptTokens` for every request). */
export const chatServer = (promptTokens = 1_000) => {
  const bodies: Array<{ messages: ReadonlyArray<unknown> }> = []
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = ""
    request.on("data", (chunk: Buffer) => void (body += chunk.toString()))
    request.on("end", () => {
      bodies.push(JSON.parse(body) as { messages: ReadonlyArray<unknown> })
      response.writeHead(200, { "content-type": "text/event-stream" })
      const chunk = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`)
      chunk({ id: "c1", object: "chat.completion.chunk", model: "m1", choices: [{ index: 0, delta: { role: "assistant", content: "All done." }, finish_reason: null }] })
      chunk({ id: "c1", object: "chat.completion.chunk", model: "m1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: promptTokens, completion_tokens: 10, total_tokens: promptTokens + 10 } })
      response.end("data: [DONE]\n\n")
    })
  })
  return { server, bodies }
}
