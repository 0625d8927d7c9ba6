/**
 * Per-client shares at scale behind the README's HAProxy recipe as written (`option
 * forwardfor`, the client address in X-Forwarded-For), at the scaffold's default limits: see
 * client-shares.ts for what is opened and why it proves each address has its own share.
 */
import { describeClientShares } from "./client-shares.js";

describeClientShares("the README's HAProxy recipe at the default shares: each client address has its own", {
  /** 127.0.0.10 .. 127.0.0.29. */
  addresses: Array.from({ length: 20 }, (_, i) => `127.0.0.${10 + i}`),
  sessionsEach: 100,
  listensEach: 25,
  greedyAddress: "127.0.0.30",
  env: { TRUSTED_PROXIES: "127.0.0.1" },
});
