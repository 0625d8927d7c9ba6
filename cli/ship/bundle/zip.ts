/**
 * A small zip writer for bundles: each file deflated (raw, as zip's method 8 wants) or
 * stored when deflating does not shrink it, with its CRC-32, written to the file as it goes
 * so that memory holds one entry at a time. No zip64: the format's 32-bit sizes and offsets
 * and 16-bit entry count are its bounds, checked before they would wrap, so an archive
 * either is what a reader expects or is not written at all.
 *
 * Every entry gets the same time (1980-01-01, zip's first day): the same files make the same
 * bytes, so a bundle's sha256 (what server.json records) changes only when its content does.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { crc32, deflateRawSync } from "node:zlib";

export interface ZipEntry {
  /** The path inside the archive: relative, with `/`. */
  readonly name: string;
  /** Where the content is read from, or the content itself. */
  readonly source: { readonly path: string } | { readonly data: Buffer };
  /** Unix permission bits (0o644, 0o755); kept so that an executable stays one. */
  readonly mode: number;
}

/** What the format can address without zip64. */
export const ZIP_LIMITS = { maxEntries: 0xffff, maxBytes: 0xffffffff, maxNameBytes: 0xffff } as const;

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;
const VERSION_NEEDED = 20;
/** Made by Unix (3), so readers take the external attributes as a file mode. */
const MADE_BY = (3 << 8) | VERSION_NEEDED;
/** Bit 11: names are UTF-8. */
const UTF8_NAMES = 0x0800;
const STORED = 0;
const DEFLATED = 8;
/** DOS date of 1980-01-01 (year 0, month 1, day 1); time 00:00:00. */
const FIXED_DATE = (1 << 5) | 1;
const FIXED_TIME = 0;
const REGULAR_FILE = 0o100000;

interface Written {
  name: Buffer;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
  mode: number;
}

/**
 * Writes `entries` as a zip at `path` (through a temporary file beside it, renamed when
 * complete). Throws, leaving no file, on a name that is not a plain relative path, a
 * duplicate, or a size beyond the format's bounds.
 */
export function writeZip(path: string, entries: readonly ZipEntry[]): { bytes: number; entries: number } {
  if (entries.length > ZIP_LIMITS.maxEntries) throw new RangeError(`${entries.length} entries: a zip without zip64 holds at most ${ZIP_LIMITS.maxEntries}`);
  const partial = `${path}.partial`;
  const fd = openSync(partial, "w");
  try {
    const written: Written[] = [];
    const names = new Set<string>();
    let offset = 0;
    for (const entry of entries) {
      const name = checkedName(entry.name, names);
      const data = "data" in entry.source ? entry.source.data : readFileSync(entry.source.path);
      const deflated = deflateRawSync(data);
      const method = deflated.length < data.length ? DEFLATED : STORED;
      const body = method === DEFLATED ? deflated : data;
      const record: Written = { name, method, crc: crc32(data), compressedSize: body.length, size: data.length, offset, mode: entry.mode & 0o7777 };
      const header = localHeader(record);
      assertAddressable(offset + header.length + body.length, entry.name);
      writeSync(fd, header);
      writeSync(fd, body);
      offset += header.length + body.length;
      written.push(record);
    }
    const central = Buffer.concat(written.map(centralHeader));
    assertAddressable(offset + central.length, "the central directory");
    writeSync(fd, central);
    writeSync(fd, endOfCentral(written.length, central.length, offset));
    closeSync(fd);
    renameSync(partial, path);
    return { bytes: offset + central.length + 22, entries: written.length };
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // already closed: the rename failed
    }
    rmSync(partial, { force: true });
    throw error;
  }
}

/** A name readers extract where it says: relative, `/`-separated, no `.` or `..` step, no NUL, unique. */
function checkedName(name: string, seen: Set<string>): Buffer {
  const steps = name.split("/");
  if (name === "" || name.includes("\\") || name.includes("\0") || steps.some((step) => step === "" || step === "." || step === "..")) {
    throw new RangeError(`zip entry name ${JSON.stringify(name)} is not a plain relative path`);
  }
  if (seen.has(name)) throw new RangeError(`zip entry ${JSON.stringify(name)} given twice`);
  seen.add(name);
  const bytes = Buffer.from(name, "utf8");
  if (bytes.length > ZIP_LIMITS.maxNameBytes) throw new RangeError(`zip entry name of ${bytes.length} bytes: at most ${ZIP_LIMITS.maxNameBytes}`);
  return bytes;
}

function assertAddressable(end: number, what: string): void {
  if (end > ZIP_LIMITS.maxBytes) throw new RangeError(`the zip would pass ${ZIP_LIMITS.maxBytes} bytes at ${what}: zip64 is not written`);
}

function localHeader(entry: Written): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(LOCAL_HEADER, 0);
  header.writeUInt16LE(VERSION_NEEDED, 4);
  header.writeUInt16LE(UTF8_NAMES, 6);
  header.writeUInt16LE(entry.method, 8);
  header.writeUInt16LE(FIXED_TIME, 10);
  header.writeUInt16LE(FIXED_DATE, 12);
  header.writeUInt32LE(entry.crc, 14);
  header.writeUInt32LE(entry.compressedSize, 18);
  header.writeUInt32LE(entry.size, 22);
  header.writeUInt16LE(entry.name.length, 26);
  header.writeUInt16LE(0, 28);
  return Buffer.concat([header, entry.name]);
}

function centralHeader(entry: Written): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(CENTRAL_HEADER, 0);
  header.writeUInt16LE(MADE_BY, 4);
  header.writeUInt16LE(VERSION_NEEDED, 6);
  header.writeUInt16LE(UTF8_NAMES, 8);
  header.writeUInt16LE(entry.method, 10);
  header.writeUInt16LE(FIXED_TIME, 12);
  header.writeUInt16LE(FIXED_DATE, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(entry.compressedSize, 20);
  header.writeUInt32LE(entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  // extra field, comment, disk number, internal attributes: all 0 (Buffer.alloc)
  header.writeUInt32LE(((REGULAR_FILE | entry.mode) << 16) >>> 0, 38);
  header.writeUInt32LE(entry.offset, 42);
  return Buffer.concat([header, entry.name]);
}

function endOfCentral(count: number, size: number, offset: number): Buffer {
  const record = Buffer.alloc(22);
  record.writeUInt32LE(END_OF_CENTRAL, 0);
  record.writeUInt16LE(count, 8);
  record.writeUInt16LE(count, 10);
  record.writeUInt32LE(size, 12);
  record.writeUInt32LE(offset, 16);
  return record;
}
