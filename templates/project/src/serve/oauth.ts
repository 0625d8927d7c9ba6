import * as jose from "jose";
import { oauthHttpOptions, type OAuthHttpOptions, type Server } from "../mcp.js";
import { StartupError } from "../startup.js";

/** Scopes every request needs: what a client asks its first token for (the 401 names them). */
export const BASE_SCOPES = ["mcp:read"];

/**
 * This server as an OAuth 2.1 resource server: tokens from the authorization server
 * MCP_AUTH_ISSUER, issued for this server's public URL MCP_PUBLIC_URL (their audience). A
 * missing or malformed variable stops the server at start with one line naming it.
 */
export function oauthFromEnv(server: Server, env = process.env): OAuthHttpOptions {
  const issuer = required(
    env,
    "MCP_AUTH_ISSUER",
    "your authorization server's issuer URL, e.g. https://auth.example.com",
  );
  const resource = required(
    env,
    "MCP_PUBLIC_URL",
    "this server's public URL, e.g. https://example.com/mcp",
  );
  try {
    // jose passed by name, so that a bundler (wrangler's, for a Worker) includes it.
    const options = { issuers: issuer, resource, requiredScopes: BASE_SCOPES, jose };
    return oauthHttpOptions(server, options);
  } catch (error) {
    throw new StartupError(
      `MCP_AUTH_ISSUER or MCP_PUBLIC_URL is not usable: ${(error as Error).message}`,
    );
  }
}

function required(env: NodeJS.ProcessEnv, name: string, what: string): string {
  const value = env[name];
  if (value === undefined || value === "")
    throw new StartupError(`${name} is not set: set it to ${what}`);
  return value;
}
