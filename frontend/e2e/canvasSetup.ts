// A workspace for the canvas, path and wiki tests, built through the API: real PDFs from
// ../shared/data/pdfs and ACL catalog records (research, catalog only, abstracts).
import { expect, type APIRequestContext } from '@playwright/test'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PDFS } from './helpers'

export const CANVAS_PDFS = ['literature-graph-naacl2018.pdf', 'specter-acl2020.pdf', 'trauma-bmc2010.pdf']

async function waitForJob(request: APIRequestContext, id: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const job = await (await request.get(`/api/jobs/${id}`)).json()
    if (job.status === 'succeeded') return
    if (['failed', 'cancelled', 'interrupted'].includes(job.status)) throw new Error(`job ${id} ${job.status}: ${job.error}`)
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} (${job.stage})`)
    await new Promise((r) => setTimeout(r, 500))
  }
}

export async function buildWorkspace(request: APIRequestContext, name: string): Promise<string> {
  const created = await request.post('/api/workspaces', {
    data: { name, description: 'citation graphs and document embeddings for scientific literature' },
  })
  expect(created.ok()).toBeTruthy()
  const id = (await created.json()).id as string
  const form = new FormData()
  for (const f of CANVAS_PDFS) form.append('files', new Blob([readFileSync(path.join(PDFS, f))], { type: 'application/pdf' }), f)
  const upload = await request.post(`/api/workspaces/${id}/sources`, { multipart: form })
  expect(upload.status(), await upload.text()).toBe(202)
  await waitForJob(request, (await upload.json()).id, 300_000)
  const research = await request.post(`/api/workspaces/${id}/research`, {
    data: { description: 'scientific document representations from citation graphs', max_sources: 5, fetch: false, sources: ['catalog'] },
  })
  expect(research.status(), await research.text()).toBe(202)
  await waitForJob(request, (await research.json()).id, 300_000)
  return id
}
