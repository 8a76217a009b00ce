// The studio's request schemas are generated from Livepeer Studio's OpenAPI file
// (`npm run gen:api`) and committed; these tests fail when the YAML changes and the JSON was not
// regenerated, and pin down how the extraction reads the YAML.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { load as parseYaml } from 'js-yaml'
import { describe, expect, it } from 'vitest'
import {
  DB_SCHEMA_OVERLAY,
  extractRequestSchemas,
  REQUEST_SCHEMA_NAMES
} from '../../../src/studio/schemas/extract.mjs'
import committed from '../../../src/studio/schemas/request-schemas.json'

const root = resolve(__dirname, '../../..')
const yamlText = readFileSync(resolve(root, 'src/shared/api/livepeer-studio-openapi.yaml'), 'utf8')

function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, out))
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref') out.push(String(v))
      else refsIn(v, out)
    }
  }
  return out
}

describe('request-schemas.json', () => {
  it('is what the OpenAPI file gives today (run `npm run gen:api` after changing the YAML)', () => {
    const fresh = extractRequestSchemas(parseYaml(yamlText))
    expect(committed.schemas).toEqual(fresh)
    // Key order too: it decides which property Ajv checks, so which error it reports, first.
    expect(JSON.stringify(committed.schemas)).toBe(JSON.stringify(fresh))
  })

  it('holds exactly the eight request payloads (two of streams, three of targets, the clip, the webhook, the upload), self-contained', () => {
    // Named here, not read back from REQUEST_SCHEMA_NAMES: a payload added or dropped there fails this.
    const eight = [
      'new-stream-payload',
      'stream-patch-payload',
      'multistream-target',
      'multistream-target-patch-payload',
      'target-add-payload',
      'clip-payload',
      'webhook',
      'new-asset-payload'
    ]
    expect(REQUEST_SCHEMA_NAMES).toEqual(eight)
    expect(Object.keys(committed.schemas)).toEqual(eight)
    expect(refsIn(committed.schemas)).toEqual([])
    const create = committed.schemas['new-stream-payload']
    expect(create.required).toEqual(['name'])
    expect(create.additionalProperties).toBe(false)
    // ffmpeg-profile inlined where profiles references it, with its rules.
    expect(create.properties.profiles.type).toEqual(['array', 'null'])
    expect(create.properties.profiles.items.required).toEqual([
      'width',
      'name',
      'height',
      'bitrate',
      'fps'
    ])
    expect(create.properties.profiles.items.properties.width.minimum).toBe(128)
    // A $ref in an annotation (description) is resolved like any other.
    expect(typeof create.properties.profiles.description).toBe('string')
  })

  it("merges Livepeer's db-schema overlay for playback policies only", () => {
    const policy = committed.schemas['stream-patch-payload'].properties.playbackPolicy
    expect(policy.properties.type.enum).toEqual([
      'public',
      'jwt',
      'webhook',
      'lit_signing_condition'
    ])
    expect(Object.keys(policy.properties)).toContain('resourceId')
    expect(Object.keys(committed.schemas['new-stream-payload'].properties)).not.toContain('wowza')
    expect(Object.keys(DB_SCHEMA_OVERLAY)).toEqual(['components'])
  })
})

describe('extractRequestSchemas', () => {
  const doc = (schemas: Record<string, unknown>): unknown => ({ components: { schemas } })
  const payloads = (extra: Record<string, unknown>): Record<string, unknown> => ({
    'new-stream-payload': { type: 'object' },
    'stream-patch-payload': { type: 'object' },
    'multistream-target': { type: 'object' },
    'multistream-target-patch-payload': { type: 'object' },
    'target-add-payload': { type: 'object' },
    'clip-payload': { type: 'object' },
    webhook: { type: 'object' },
    'new-asset-payload': { type: 'object' },
    ...extra
  })

  it('inlines a $ref with siblings as json-schema-ref-parser does: siblings first, winning', () => {
    const out = extractRequestSchemas(
      doc(
        payloads({
          base: { type: 'string', description: 'base', minLength: 1 },
          'new-stream-payload': {
            properties: { name: { description: 'mine', $ref: '#/components/schemas/base' } }
          }
        })
      )
    )
    const name = (out['new-stream-payload'].properties as Record<string, unknown>).name
    expect(name).toEqual({ description: 'mine', type: 'string', minLength: 1 })
    expect(Object.keys(name as object)).toEqual(['description', 'type', 'minLength'])
  })

  it('follows refs through refs and leaves the input untouched', () => {
    const input = doc(
      payloads({
        a: { properties: { x: { $ref: '#/components/schemas/b' } } },
        b: { type: 'integer' },
        'stream-patch-payload': {
          properties: { y: { $ref: '#/components/schemas/a/properties/x' } }
        }
      })
    )
    const before = JSON.stringify(input)
    const out = extractRequestSchemas(input)
    expect(out['stream-patch-payload']).toEqual({ properties: { y: { type: 'integer' } } })
    expect(JSON.stringify(input)).toBe(before)
  })

  it('refuses what it cannot write out: circular, dangling, remote refs, missing payloads', () => {
    expect(() =>
      extractRequestSchemas(
        doc(
          payloads({
            'new-stream-payload': { items: { $ref: '#/components/schemas/new-stream-payload' } }
          })
        )
      )
    ).toThrow('circular')
    expect(() =>
      extractRequestSchemas(
        doc(payloads({ 'new-stream-payload': { $ref: '#/components/schemas/nope' } }))
      )
    ).toThrow('points at nothing')
    expect(() =>
      extractRequestSchemas(doc(payloads({ 'new-stream-payload': { $ref: 'other.yaml#/x' } })))
    ).toThrow('only local')
    expect(() => extractRequestSchemas(doc({ 'new-stream-payload': {} }))).toThrow(
      'stream-patch-payload'
    )
  })
})
