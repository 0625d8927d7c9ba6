#!/usr/bin/env node
// `npx create-mcp-handler` resolves this package by name; the scaffolder itself lives in
// mcp-gen, which the new project also depends on, so `npx mcp-gen` works inside it.
await import("mcp-gen/dist/cli/create.js");
