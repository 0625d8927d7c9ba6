import type { SchemaIdentity } from "./verify.js";
import type { NormalizedSchema } from "./normalize.js";
import type { SchemaIR } from "./ir-model.js";
import { deriveMethods } from "./ir-methods.js";
import { deriveSubscriptions } from "./ir-subscriptions.js";
import { deriveErrorCodes, deriveMetaKeys } from "./ir-facts.js";
import { deriveExtensionFacts } from "./ir-extensions.js";
import { deriveShapes } from "./ir-shapes.js";
import type { ExtensionContribution } from "./extend.js";

/** Derives the IR from a normalized schema: methods, subscription kinds, error codes, `_meta` keys, what each extension added. */
export function buildIR(schema: NormalizedSchema, identity: SchemaIdentity, extensions: readonly ExtensionContribution[] = []): SchemaIR {
  const notes: string[] = [];
  const methods = deriveMethods(schema.definitions, notes);
  const subscriptions = deriveSubscriptions(schema.definitions, methods, notes);
  const errorCodes = deriveErrorCodes(schema.definitions);
  const maps: SchemaIR["maps"] = {
    revision: identity.revision,
    ...methods,
    subscriptionKinds: subscriptions?.kinds ?? null,
    streamMethods: subscriptions?.streamMethods ?? [],
    errorCodes,
    metaKeys: deriveMetaKeys(schema.definitions),
    extensions: extensions.map((extension) => deriveExtensionFacts(schema.definitions, extension, methods, errorCodes)),
  };
  return {
    identity,
    definitions: [...schema.definitions].map(([name, def]) => ({ name, schema: def })),
    maps,
    shapes: deriveShapes(schema.definitions, maps),
    withRuntime: subscriptions !== null,
    notes,
  };
}
