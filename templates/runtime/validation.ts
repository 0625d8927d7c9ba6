/**
 * Tool input and output checked against their JSON Schemas (2020-12, the dialect the spec
 * names). The runtime needs nothing beyond Node, so it does not validate by itself: a
 * project passes a `SchemaValidator` to `createServer({ validator })`. `ajvSchemaValidator`
 * adapts an Ajv 2020 instance the project creates (typed structurally: no import of ajv here).
 */

/** One value checked: valid, or the violations as short lines ("/path message"). */
export type ValidationResult = { readonly valid: true } | { readonly valid: false; readonly errors: readonly string[] };
export type CompiledSchema = (value: unknown) => ValidationResult;

export interface SchemaValidator {
  /**
   * Prepares a schema for repeated checks. Throws when the schema itself is unusable, for
   * example a `$ref` it cannot resolve: such a schema is refused, not treated as permissive,
   * and network `$ref`s must never be fetched (the spec's `$ref` resolution rule).
   */
  compile(schema: object): CompiledSchema;
}

/** What `ajvSchemaValidator` needs of an Ajv instance (Ajv 8's `ajv/dist/2020` build). */
export interface AjvLike {
  compile(schema: object): AjvValidateFunction;
}
export interface AjvValidateFunction {
  (data: unknown): boolean;
  errors?: readonly { instancePath: string; message?: string }[] | null;
}

/** Errors reported per failed check; more would only lengthen the message. */
const MAX_REPORTED_ERRORS = 10;

/** A SchemaValidator over an Ajv 2020 instance, e.g. `ajvSchemaValidator(new Ajv2020({ strict: false }))`. */
export function ajvSchemaValidator(ajv: AjvLike): SchemaValidator {
  return {
    compile(schema) {
      const validate = ajv.compile(schema);
      return (value) => {
        if (validate(value)) return VALID;
        const errors = (validate.errors ?? []).slice(0, MAX_REPORTED_ERRORS).map((error) => `${error.instancePath || "/"} ${error.message ?? "is invalid"}`);
        return { valid: false, errors: errors.length > 0 ? errors : ["/ is invalid"] };
      };
    },
  };
}

const VALID: ValidationResult = Object.freeze({ valid: true });
