/**
 * A package tarball as `npm pack` lays it out (`package/<path>`, ustar, gzip), written
 * here so that a project scaffolded from a checkout can keep the generator beside it
 * (`vendor/`) without running npm: its `package.json`, README and licence, and what
 * its `files` list names. Entries are sorted and dated like npm's, so the same files give
 * the same bytes.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { listFiles } from "./files.js";

const BLOCK = 512;
/** npm dates every entry 1985-10-26T08:15:00Z, so a tarball does not change with mtimes. */
const NPM_EPOCH_SECONDS = 499162500;
/** Where `npm run build` leaves this package packed (cli/build-finish.ts); package.json's `files` leaves it out (`!dist/package.tgz`). */
export const PACKED_BUILD = "dist/package.tgz";
/** The runtime package, packed by `npm run build` from its build (packages/runtime/dist/); a packed mcp-gen carries it. */
export const PACKED_RUNTIME = "dist/runtime.tgz";
const ALWAYS_INCLUDED = /^(package\.json|readme(\.[^/]*)?|licen[cs]e(\.[^/]*)?|notice(\.[^/]*)?)$/i;

/** The paths a packed `root` holds, relative to it: `package.json` and its `files` entries (folders whole, `!path` left out). */
export function packedPaths(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { files?: string[] };
  const entries = manifest.files ?? [];
  const excluded = new Set(entries.filter((entry) => entry.startsWith("!")).map((entry) => entry.slice(1)));
  const top = listFiles(root).filter((path) => !path.includes("/") && ALWAYS_INCLUDED.test(path));
  const listed = entries
    .filter((entry) => !entry.startsWith("!"))
    .flatMap((entry) => {
      const clean = entry.replace(/\/+$/, "");
      return isFile(join(root, clean)) ? [clean] : listFiles(join(root, clean), `${clean}/`);
    });
  const kept = new Set(
    [...top, ...listed].filter((path) => !excluded.has(path) && !path.split("/").includes("node_modules") && isFile(join(root, path))),
  );
  return [...kept].sort();
}

/** The gzipped tarball of `root`'s packed paths. */
export function packTarball(root: string): Buffer {
  const blocks: Buffer[] = [];
  for (const path of packedPaths(root)) {
    const body = readFileSync(join(root, path));
    blocks.push(header(`package/${path}`, body.length, (statSync(join(root, path)).mode & 0o111) !== 0 ? 0o755 : 0o644), body);
    const padding = (BLOCK - (body.length % BLOCK)) % BLOCK;
    if (padding > 0) blocks.push(Buffer.alloc(padding));
  }
  blocks.push(Buffer.alloc(BLOCK * 2)); // the end-of-archive marker
  return gzipSync(Buffer.concat(blocks), { level: 6 });
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** One ustar header block; a path over 100 bytes is split into prefix and name at a `/`. */
function header(path: string, size: number, mode: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const [prefix, name] = splitPath(path);
  block.write(name, 0, 100, "utf8");
  writeOctal(block, mode, 100, 8);
  writeOctal(block, 0, 108, 8); // uid
  writeOctal(block, 0, 116, 8); // gid
  writeOctal(block, size, 124, 12);
  writeOctal(block, NPM_EPOCH_SECONDS, 136, 12);
  block.fill(" ", 148, 156); // the checksum counts its own field as spaces
  block.write("0", 156, 1, "ascii"); // a regular file
  block.write("ustar\u000000", 257, 8, "ascii");
  block.write(prefix, 345, 155, "utf8");
  let checksum = 0;
  for (const byte of block) checksum += byte;
  writeOctal(block, checksum, 148, 7);
  return block;
}

function splitPath(path: string): [string, string] {
  if (Buffer.byteLength(path) <= 100) return ["", path];
  for (let at = path.indexOf("/"); at > 0; at = path.indexOf("/", at + 1)) {
    const [prefix, name] = [path.slice(0, at), path.slice(at + 1)];
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return [prefix, name];
  }
  throw new Error(`${path} is too long for a tarball entry`);
}

/** An octal number, zero-padded, NUL-terminated, in `length` bytes at `offset`. */
function writeOctal(block: Buffer, value: number, offset: number, length: number): void {
  block.write(`${value.toString(8).padStart(length - 1, "0")}\u0000`, offset, length, "ascii");
}
