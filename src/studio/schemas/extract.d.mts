// Types for extract.mjs (plain JavaScript so that `npm run gen:api` runs it with plain Node).

/** The schemas the studio compiles: the bodies of POST /stream and PATCH /stream/{id}. */
export declare const REQUEST_SCHEMA_NAMES: readonly ['new-stream-payload', 'stream-patch-payload']

/** The part of Livepeer's db-schema.yaml merged over the public schema before inlining. */
export declare const DB_SCHEMA_OVERLAY: Record<string, unknown>

/** The request schemas, self-contained (no $ref left), keyed by component name. */
export declare function extractRequestSchemas(
  doc: unknown
): Record<(typeof REQUEST_SCHEMA_NAMES)[number], Record<string, unknown>>
