/** The fuzz app over this process's stdio (spawned by the stdio fuzzer). */
import { StdioServerTransport } from "../../packages/runtime/src/index.js";
import { fuzzApp } from "./app.js";

process.on("unhandledRejection", (reason) => {
  process.stderr.write(`UNHANDLED REJECTION ${String(reason)}\n`);
  process.exitCode = 3;
});
await fuzzApp().connect(new StdioServerTransport({ maxLineLength: 64 * 1024 }));
