import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { CliError } from "../../../cli/errors.js";
import { loadSchema } from "../../../cli/generate/load.js";
import { freePort } from "../../support/ports.js";
import { schemaPath } from "../../support/schemas.js";
import { serveOnLoopback } from "./helpers.js";

test("a file and the same bytes over http give the same sha256", async () => {
  const fromFile = await loadSchema(schemaPath("2026-07-28"));
  const server = await serveOnLoopback(readFileSync(schemaPath("2026-07-28"), "utf8"));
  try {
    const fromUrl = await loadSchema(server.url);
    assert.equal(fromUrl.sha256, fromFile.sha256);
    assert.equal(fromUrl.isUrl, true);
    assert.deepEqual(Object.keys(fromUrl.json.$defs as object).length, Object.keys(fromFile.json.$defs as object).length);
  } finally {
    await server.close();
  }
});

test("an unreachable URL is a CliError naming the address and a local alternative", async () => {
  const url = `http://127.0.0.1:${await freePort()}/schema.json`;
  await assert.rejects(loadSchema(url), (error: Error & { hint?: string }) => {
    assert.equal(error.name, "CliError");
    assert.match(error.message, /^cannot reach http:\/\/127\.0\.0\.1:\d+\/schema\.json \(ECONNREFUSED\)$/);
    assert.match(error.hint ?? "", /--schema <path>/);
    return true;
  });
});

/** A loopback server answering every request with `answer`; closes its connections on close(). */
async function serve(answer: (request: IncomingMessage, response: ServerResponse) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/schema.json`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes `total` bytes of spaces in 64 KiB chunks, respecting back-pressure, until the client goes away. */
function stream(response: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const pump = (): void => {
    while (sent < total && !response.destroyed) {
      sent += chunk.length;
      if (!response.write(chunk)) return void response.once("drain", pump);
    }
    response.end();
  };
  pump();
}

describe("schema downloads are bounded in size (decompressed) and time, each refusal one line", () => {
  const limits = { maxBytes: 1024 * 1024, timeoutMs: 1_000 };
  const refused = (pattern: RegExp) => (error: Error) => {
    assert.ok(error instanceof CliError, String(error?.stack));
    assert.doesNotMatch(error.message, /\n/);
    assert.match(error.message, pattern);
    return true;
  };

  test("a body over the size cap is refused, whether its length is declared or streamed", async () => {
    for (const declared of [true, false]) {
      const server = await serve((_request, response) => {
        response.writeHead(200, declared ? { "content-length": String(8 * 1024 * 1024) } : {});
        stream(response, 8 * 1024 * 1024);
      });
      try {
        await assert.rejects(loadSchema(server.url, limits), refused(/is larger than 1 MiB/));
      } finally {
        await server.close();
      }
    }
  });

  test("a gzip bomb is refused by its decompressed size", async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-encoding": "gzip", "content-length": String(bomb.length) });
      response.end(bomb);
    });
    try {
      await assert.rejects(loadSchema(server.url, limits), refused(/is larger than 1 MiB/));
    } finally {
      await server.close();
    }
  });

  test("a body that trickles past the time bound is refused", async () => {
    let timer: NodeJS.Timeout | undefined;
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      timer = setInterval(() => response.write(" "), 50);
      response.on("close", () => clearInterval(timer));
    });
    try {
      await assert.rejects(loadSchema(server.url, limits), refused(/took longer than 1 s/));
    } finally {
      clearInterval(timer);
      await server.close();
    }
  });
});

describe("a schema file is bounded like a download: at most the size cap is read, and only a regular file", () => {
  const limits = { maxBytes: 1024 * 1024, timeoutMs: 1_000 };
  const refused = (pattern: RegExp) => (error: Error) => {
    assert.ok(error instanceof CliError, String(error?.stack));
    assert.doesNotMatch(error.message, /\n/);
    assert.match(error.message, pattern);
    return true;
  };

  test("an endless device such as /dev/zero is refused before anything is read", async () => {
    const before = process.memoryUsage().rss;
    await assert.rejects(loadSchema("/dev/zero"), refused(/^schema file \/dev\/zero is not a regular file$/));
    assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024);
  });

  test("a folder and a named pipe are refused as not regular files", async () => {
    const dir = mkdtempSync(join(tmpdir(), "load-"));
    try {
      await assert.rejects(loadSchema(dir, limits), refused(/is not a regular file$/));
      const fifo = join(dir, "schema.fifo");
      execFileSync("mkfifo", [fifo]);
      await assert.rejects(loadSchema(fifo, limits), refused(/is not a regular file$/));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a file over the cap is refused naming the cap; one at the cap is read", async () => {
    const dir = mkdtempSync(join(tmpdir(), "load-"));
    try {
      const big = join(dir, "big.json");
      writeFileSync(big, Buffer.alloc(limits.maxBytes + 1, 0x20));
      await assert.rejects(loadSchema(big, limits), refused(/^schema file .*big\.json is larger than 1 MiB$/));
      const exact = join(dir, "exact.json");
      const schema = `{"$defs":{}}`;
      writeFileSync(exact, schema.padEnd(limits.maxBytes, " "));
      assert.deepEqual((await loadSchema(exact, limits)).json, { $defs: {} });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a schema URL reaches only its own origin, never a link-local or metadata address, and no error quotes what was read", () => {
  const limits = { maxBytes: 1024 * 1024, timeoutMs: 5_000 };
  const refused = (pattern: RegExp) => (error: Error) => {
    assert.ok(error instanceof CliError, String(error?.stack));
    assert.doesNotMatch(error.message, /\n/);
    assert.match(error.message, pattern);
    return true;
  };
  const schema = JSON.stringify({ $defs: { A: { type: "string" } } });

  test("a redirect within the origin is followed; one to another origin is refused and that origin never asked", async () => {
    let asked = 0;
    const elsewhere = await serve((_request, response) => {
      asked++;
      response.end(schema);
    });
    const origin = await serve((request, response) => {
      if (request.url === "/schema.json") response.writeHead(302, { location: "/moved/schema.json" }).end();
      else if (request.url === "/moved/schema.json") response.end(schema);
      else response.writeHead(301, { location: elsewhere.url }).end();
    });
    try {
      assert.deepEqual((await loadSchema(origin.url, limits)).json, JSON.parse(schema));
      const away = origin.url.replace("/schema.json", "/away");
      await assert.rejects(
        loadSchema(away, limits),
        refused(/^http:\/\/127\.0\.0\.1:\d+\/away redirects to another origin \(http:\/\/127\.0\.0\.1:\d+\); only redirects within/),
      );
      assert.equal(asked, 0);
    } finally {
      await origin.close();
      await elsewhere.close();
    }
  });

  test("redirects in a loop stop at the bound", async () => {
    const server = await serve((_request, response) => response.writeHead(302, { location: "/schema.json" }).end());
    try {
      await assert.rejects(loadSchema(server.url, limits), refused(/redirects more than 5 times$/));
    } finally {
      await server.close();
    }
  });

  test("link-local and metadata addresses are refused before any connection, however spelled", async () => {
    for (const host of ["169.254.169.254", "169.254.0.1", "[fe80::1]", "[::ffff:169.254.169.254]", "100.100.100.200", "[fd00:ec2::254]"]) {
      const started = Date.now();
      await assert.rejects(loadSchema(`http://${host}/latest/meta-data/`, limits), refused(/a link-local or cloud metadata address; refusing to connect$/));
      assert.ok(Date.now() - started < 1_000, host);
    }
  });

  test("a name is resolved, checked and connected to (localhost reaches a loopback server)", async () => {
    const server = await serve((_request, response) => response.end(schema));
    try {
      assert.deepEqual((await loadSchema(server.url.replace("127.0.0.1", "localhost"), limits)).json, JSON.parse(schema));
    } finally {
      await server.close();
    }
  });

  test("a file or a body that is not JSON is refused without quoting it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "load-"));
    const server = await serve((_request, response) => response.end("root:x:0:0:root:/root:/bin/bash\n"));
    try {
      const file = join(dir, "passwd");
      writeFileSync(file, "root:x:0:0:root:/root:/bin/bash\n");
      for (const location of [file, server.url]) {
        await assert.rejects(loadSchema(location, limits), (error: Error) => {
          refused(/ is not valid JSON/)(error);
          assert.doesNotMatch(`${error.message} ${(error as CliError).hint}`, /root|bash/);
          return true;
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    }
  });
});
