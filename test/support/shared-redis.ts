import { startRedisCluster } from "./redis-cluster.js";
import { startRedisServer } from "./redis-server.js";

/**
 * What the scale tests' replicas share: one redis-server, or a Redis Cluster (3 masters and 3
 * replicas on loopback, reached by a `redis+cluster://` URL). The cases that hold for both run
 * on each, so a change that works on one server but not across hash slots fails by name.
 */
export type RedisTopology = "one redis-server" | "a Redis Cluster";

export const REDIS_TOPOLOGIES: readonly RedisTopology[] = ["one redis-server", "a Redis Cluster"];

export interface SharedRedis {
  /** What REDIS_URL is set to. */
  readonly url: string;
  /** Stops every Redis process it started. Safe to call twice. */
  stop(): Promise<void>;
}

export function startSharedRedis(topology: RedisTopology): Promise<SharedRedis> {
  return topology === "a Redis Cluster" ? startRedisCluster() : startRedisServer();
}
