// Generate src/api/schema.d.ts from the backend's OpenAPI schema.
//   node scripts/gen-api.mjs           write it
//   node scripts/gen-api.mjs --check   fail when the committed file differs (CI)
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import path from 'node:path'
import openapiTS, { astToString } from 'openapi-typescript'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '..', '..')
const target = path.resolve(here, '..', 'src', 'api', 'schema.d.ts')

const uv = process.env.UV ?? 'uv'
const json = execFileSync(uv, ['run', '--frozen', 'python', 'scripts/export_openapi.py'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
})
const ast = await openapiTS(JSON.parse(json))
const header = '// Generated from the backend OpenAPI schema by `npm run gen:api`; do not edit.\n'
const text = header + astToString(ast)

if (process.argv.includes('--check')) {
  const current = existsSync(target) ? readFileSync(target, 'utf8') : ''
  if (current !== text) {
    console.error('src/api/schema.d.ts is stale: run `make web-api` (or `npm run gen:api`) and commit it')
    process.exit(1)
  }
  console.log('src/api/schema.d.ts matches the OpenAPI schema')
} else {
  writeFileSync(target, text)
  console.log(`wrote ${path.relative(process.cwd(), target)}`)
}
