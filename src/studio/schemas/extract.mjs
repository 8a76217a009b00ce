// Takes the request-body schemas the local studio validates out of Livepeer Studio's OpenAPI
// document, the way Livepeer's own compile-schemas script prepares them for Ajv: its db-schema
// overlay merged over the public schema (lodash merge), then every $ref inlined (what
// json-schema-ref-parser's dereference does). Pure, with no file access and no YAML parser, so
// that `npm run gen:api` (which writes the result) and the unit test (which checks the committed
// result is still what the YAML gives) run the very same code.

/**
 * The schemas the studio compiles: the bodies of POST /stream and PATCH /stream/{id}, of the
 * multistream routes (POST and PATCH /multistream/target, POST /stream/{id}/create-multistream-target),
 * of POST /clip, of the webhook routes (POST /webhook and PUT /webhook/{id}), and of
 * POST /asset/request-upload.
 */
export const REQUEST_SCHEMA_NAMES = [
  'new-stream-payload',
  'stream-patch-payload',
  'multistream-target',
  'multistream-target-patch-payload',
  'target-add-payload',
  'clip-payload',
  'webhook',
  'new-asset-payload'
]

/**
 * The part of Livepeer's db-schema.yaml (internal, not in the public OpenAPI file) that changes
 * how these bodies validate and that the local studio answers like Livepeer: a
 * lit_signing_condition playback policy passes the schema, then the server refuses it (400).
 * The other internal fields it adds to new-stream-payload (wowza, presets, renditions,
 * objectStoreId, recordObjectStoreId, detection) are left out on purpose: the local studio
 * implements none of them, so they stay unknown properties (422) instead of being silently
 * accepted and ignored.
 */
export const DB_SCHEMA_OVERLAY = {
  components: {
    schemas: {
      'playback-policy': {
        properties: {
          type: { enum: ['public', 'jwt', 'webhook', 'lit_signing_condition'] },
          unifiedAccessControlConditions: {
            type: 'array',
            description: 'LIT Unified Access Control Conditions',
            items: { type: 'object' }
          },
          resourceId: {
            type: 'object',
            description: 'LIT Resource ID',
            additionalProperties: false,
            required: ['baseUrl', 'path', 'orgId', 'role', 'extraData'],
            properties: {
              baseUrl: { type: 'string' },
              path: { type: 'string' },
              orgId: { type: 'string' },
              role: { type: 'string' },
              extraData: { type: 'string' }
            }
          }
        }
      }
    }
  }
}

const isPlainObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v)

/** lodash's merge: objects and arrays merge key by key (arrays by index), the rest replaces. */
function merge(target, source) {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key]
    const bothObjects = isPlainObject(current) && isPlainObject(value)
    const bothArrays = Array.isArray(current) && Array.isArray(value)
    if (bothObjects || bothArrays) merge(current, value)
    else if (value !== undefined) target[key] = structuredClone(value)
  }
  return target
}

/** Follows a local JSON pointer (`#/components/schemas/x`), through any $ref met on the way. */
function resolvePointer(root, ref, seen) {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`)
  let node = root
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    if (isPlainObject(node) && typeof node.$ref === 'string') node = inline(node, root, seen)
    if (node === null || typeof node !== 'object' || !(key in node))
      throw new Error(`$ref ${ref} points at nothing`)
    node = node[key]
  }
  return node
}

/**
 * A copy of `node` with every $ref replaced by what it points at. A $ref with siblings is an
 * "extended" ref, merged as json-schema-ref-parser merges it: the siblings first and winning, the
 * target's keys after them (key order decides which property Ajv checks first, hence which error
 * it reports when it stops at the first one).
 */
function inline(node, root, seen) {
  if (Array.isArray(node)) return node.map((item) => inline(item, root, seen))
  if (!isPlainObject(node)) return node
  if (typeof node.$ref !== 'string') {
    const out = {}
    for (const [key, value] of Object.entries(node)) out[key] = inline(value, root, seen)
    return out
  }
  const ref = node.$ref
  // A schema that contains itself cannot be written out as plain JSON; none of these do.
  if (seen.includes(ref)) throw new Error(`circular $ref ${ref}`)
  const target = inline(resolvePointer(root, ref, seen), root, [...seen, ref])
  const siblings = Object.keys(node).filter((key) => key !== '$ref')
  if (siblings.length === 0 || !isPlainObject(target)) return target
  const merged = {}
  for (const key of siblings) merged[key] = inline(node[key], root, seen)
  for (const [key, value] of Object.entries(target)) if (!(key in merged)) merged[key] = value
  return merged
}

/**
 * The request schemas, self-contained (no $ref left), keyed by component name, from the parsed
 * OpenAPI document. The document itself is not changed.
 */
export function extractRequestSchemas(doc) {
  const merged = merge(structuredClone(doc), DB_SCHEMA_OVERLAY)
  const schemas = {}
  for (const name of REQUEST_SCHEMA_NAMES) {
    const schema = merged.components?.schemas?.[name]
    if (!schema) throw new Error(`the OpenAPI document has no components.schemas.${name}`)
    schemas[name] = inline(schema, merged, [])
  }
  return schemas
}
