import type { SchemaIdentity } from "./verify.js";
import type { NormalizedSchema } from "./normalize.js";
import type { SchemaIR } from "./ir-model.js";
import { deriveMethods } from "./ir-methods.js";
import { deriveSubscriptions } from "./ir-subscriptions.js";
import { deriveErrorCodes, deriveMetaKeys } from "./ir-facts.js";

/** Derives the IR from a normalized schema: methods, subscription kinds, error codes, `_meta` keys. */
export function buildIR(schema: NormalizedSchema, identity: SchemaIdentity): SchemaIR {
  const notes: string[] = [];
  const methods = deriveMethods(schema.definitions, notes);
  const subscriptions = deriveSubscriptions(schema.definitions, methods, notes);
  return {
    identity,
    definitions: [...schema.definitions].map(([name, def]) => ({ name, schema: def })),
    maps: {
      revision: identity.revision,
      ...methods,
      subscriptionKinds: subscriptions?.kinds ?? null,
      streamMethods: subscriptions?.streamMethods ?? [],
      errorCodes: deriveErrorCodes(schema.definitions),
      metaKeys: deriveMetaKeys(schema.definitions),
    },
    withRuntime: subscriptions !== null,
    notes,
  };
}
