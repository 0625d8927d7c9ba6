/**
 * The JOSE library (`jose`), loaded on first use and only by the OAuth module: a server
 * without OAuth never loads it, and a project that does not use OAuth need not install it.
 * The specifier is a variable so that the runtime compiles without jose's types present;
 * the little this module uses is typed here instead.
 */

/** A key jose imported (a CryptoKey); opaque to us. */
export type JoseKey = object;

export interface JoseVerifyOptions {
  readonly issuer: string;
  readonly audience: string;
  // Mutable arrays, as jose declares them, so that jose's own module is assignable to JoseModule.
  readonly algorithms: string[];
  readonly requiredClaims: string[];
  readonly clockTolerance: number;
  readonly maxTokenAge?: number;
}

export interface JoseModule {
  importJWK(jwk: Readonly<Record<string, unknown>>, alg: string): Promise<JoseKey | Uint8Array>;
  jwtVerify(jwt: string, key: JoseKey, options: JoseVerifyOptions): Promise<{ payload: Record<string, unknown> }>;
}

/** A jose failure: its `code` (e.g. ERR_JWT_EXPIRED) and, for a failed claim check, the claim. */
export interface JoseFailure {
  readonly code?: unknown;
  readonly claim?: unknown;
}

const JOSE_SPECIFIER = "jose";
let loading: Promise<JoseModule> | undefined;

/** jose, imported once per process. */
export function loadJose(): Promise<JoseModule> {
  loading ??= (import(JOSE_SPECIFIER) as Promise<JoseModule>).catch((error: unknown) => {
    loading = undefined;
    throw new Error(
      `OAuth needs the jose package, which could not be loaded (${error instanceof Error ? error.message : String(error)}); add it: npm install jose`,
    );
  });
  return loading;
}
