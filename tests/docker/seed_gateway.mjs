// Seeds a fresh OpenClaw 2026.9.6 Gateway state dir with the docker-smoke conversation
// (spec gateway-protocol.md §9.3), through the installed package's public plugin-sdk exports.
//
// Run with node 24, working directory = the reference install dir (so `openclaw/plugin-sdk/...` resolves),
// and OPENCLAW_STATE_DIR / OPENCLAW_CONFIG_PATH / HOME pointing at the Gateway's state (§9.2).
//
//   node seed_gateway.mjs <mock base url> [--log-file <path>] [--no-image-block]
//
// Prints one JSON line: {"configPath", "storePath", "sessionKey", "now"}.
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const baseUrl = args[0];
if (!baseUrl || !/^http:\/\/127\.0\.0\.1:\d+\/v1$/.test(baseUrl)) {
  console.error("usage: node seed_gateway.mjs http://127.0.0.1:<port>/v1 [--log-file <path>] [--no-image-block]");
  process.exit(2);
}
const logIndex = args.indexOf("--log-file");
const logFile = logIndex >= 0 ? args[logIndex + 1] : undefined;
const withImageBlock = !args.includes("--no-image-block");

const configPath = process.env.OPENCLAW_CONFIG_PATH;
if (!configPath || !process.env.OPENCLAW_STATE_DIR) {
  console.error("OPENCLAW_STATE_DIR and OPENCLAW_CONFIG_PATH must be set");
  process.exit(2);
}

// Resolve the package's public exports from the reference install (cwd), not from this script's location.
const requireFromReference = createRequire(`${process.cwd()}/`);
const sdk = (name) => import(pathToFileURL(requireFromReference.resolve(`openclaw/plugin-sdk/${name}`)).href);
const { applyProviderConfigWithDefaultModelPreset } = await sdk("provider-onboard");
const { resolveOpenClawAgentSqlitePath } = await sdk("sqlite-runtime");
const { upsertSessionEntry, normalizeSessionDeliveryState } = await sdk("session-store-runtime");
const { appendSessionTranscriptMessagesByIdentity } = await sdk("session-transcript-runtime");

// 1. Config: the mock OpenAI Responses provider as the default model.
const base = {
  gateway: { controlUi: { enabled: false } },
  agents: { defaults: { heartbeat: { every: "0m" } } },
  plugins: { enabled: false },
};
if (logFile) base.logging = { file: logFile };
const config = applyProviderConfigWithDefaultModelPreset(base, {
  providerId: "openai",
  api: "openai-responses",
  baseUrl,
  defaultModel: {
    id: "gpt-5.5",
    name: "gpt-5.5",
    api: "openai-responses",
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 1050000,
    maxTokens: 128000,
  },
  defaultModelId: "gpt-5.5",
  aliases: [{ modelRef: "openai/gpt-5.5", alias: "GPT" }],
  primaryModelRef: "openai/gpt-5.5",
});
config.models.providers.openai.apiKey = "sk-docker-smoke-test";
mkdirSync(dirname(configPath), { recursive: true });
writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });

// 2. The main agent's session store.
const agentId = "main";
const sessionKey = "agent:main:main";
const sessionId = "sess-main";
const storePath = resolveOpenClawAgentSqlitePath({ agentId });

// 3. The routed session.
const now = Date.now();
await upsertSessionEntry({
  agentId,
  sessionKey,
  storePath,
  entry: {
    sessionId,
    updatedAt: now,
    delivery: normalizeSessionDeliveryState({
      context: { channel: "imessage", to: "+15551234567", accountId: "imessage-default", threadId: "thread-42" },
    }),
    displayName: "Docker MCP Channel Smoke",
  },
});

// 4. Its transcript.
const messages = [
  {
    eventId: "msg-1",
    now,
    message: { role: "assistant", content: [{ type: "text", text: "hello from seeded transcript" }], timestamp: now },
  },
  {
    eventId: "msg-attachment",
    now: now + 1,
    message: {
      role: "user",
      content: "seeded image attachment",
      __openclaw: {
        media: [
          {
            url: "media://inbound/seeded-image.png",
            contentType: "image/png",
            kind: "image",
            fileName: "seeded-image.png",
            sizeBytes: 3,
          },
        ],
      },
      timestamp: now + 1,
    },
  },
];
if (withImageBlock) {
  messages.push({
    eventId: "msg-image-block",
    now: now + 2,
    message: {
      role: "assistant",
      content: [
        { type: "text", text: "seeded image block" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "abc" } },
      ],
      timestamp: now + 2,
    },
  });
}
await appendSessionTranscriptMessagesByIdentity({ agentId, sessionKey, sessionId, storePath, config, messages });

console.log(JSON.stringify({ configPath, storePath, sessionKey, now }));
