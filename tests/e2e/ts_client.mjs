// Drive `kenso-git serve` with the TypeScript MCP SDK's Client, as the MCP Inspector and
// Gemini CLI do: callTool() validates structuredContent against each tool's outputSchema.
// Usage: node ts_client.mjs PLAN.json; prints one JSON document with the outcome of each call.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const plan = JSON.parse(readFileSync(process.argv[2], "utf-8"));

function transportFor(spec) {
  if (spec.kind === "stdio") {
    return new StdioClientTransport({
      command: spec.command, args: spec.args, cwd: spec.cwd, env: spec.env, stderr: "ignore",
    });
  }
  return new StreamableHTTPClientTransport(new URL(spec.url), {
    requestInit: { headers: { Authorization: `Bearer ${spec.token}` } },
  });
}

const client = new Client({ name: "kenso-ts-e2e", version: "1.0.0" });
await client.connect(transportFor(plan.transport));
const tools = (await client.listTools()).tools.map((t) => t.name);
const calls = [];
for (const call of plan.calls) {
  try {
    const result = await client.callTool({ name: call.name, arguments: call.arguments });
    const text = result.content.filter((c) => c.type === "text").map((c) => c.text).join("");
    calls.push({ name: call.name, isError: result.isError === true, text,
                 structured: result.structuredContent ?? null });
  } catch (err) {
    calls.push({ name: call.name, thrown: String(err && err.message ? err.message : err) });
  }
}
await client.close();
process.stdout.write(JSON.stringify({ tools, calls }));
