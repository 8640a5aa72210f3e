// @vitest-environment node
import { afterEach, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { followSse, SseParser, type SseMessage } from './sse'

describe('SseParser', () => {
  it('parses fields split across chunks and dispatches on a blank line', () => {
    const p = new SseParser()
    const out: SseMessage[] = []
    for (const chunk of ['id: 4\nev', 'ent: stage\ndata: {"a"', ':1}\n', '\n: a comment\n', 'id: 5\ndata: x\ndata: y\n\n'])
      out.push(...p.push(chunk))
    expect(out).toEqual([
      { id: '4', event: 'stage', data: '{"a":1}' },
      { id: '5', event: 'message', data: 'x\ny' },
    ])
    expect(p.lastEventId).toBe('5')
  })

  it('drops an event that the stream cut before its blank line', () => {
    const p = new SseParser()
    expect(p.push('id: 1\ndata: whole\n\nid: 2\ndata: cut')).toHaveLength(1)
    expect(p.end()).toEqual([])
    expect(p.lastEventId).toBe('1')
  })
})

describe('followSse against a real HTTP server', () => {
  let server: Server | undefined
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())))

  it('reconnects with Last-Event-ID after a drop and stops at the final event', async () => {
    const seenHeaders: Array<string | undefined> = []
    const events = [1, 2, 3, 4, 5].map((id) => ({ id, final: id === 5 }))
    server = createServer((req, res) => {
      const last = req.headers['last-event-id']
      seenHeaders.push(typeof last === 'string' ? last : undefined)
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
      const after = last ? Number(last) : 0
      const rest = events.filter((e) => e.id > after)
      // The first connection sends two events and half of a third, then drops.
      const send = seenHeaders.length === 1 ? rest.slice(0, 2) : rest
      for (const e of send) res.write(`id: ${e.id}\nevent: status\ndata: ${JSON.stringify(e)}\n\n`)
      if (seenHeaders.length === 1) {
        // Let the bytes reach the client before the connection is cut.
        res.write('id: 3\nevent: status\ndata: {"id":', () => setTimeout(() => res.destroy(), 50))
      } else res.end()
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const got: number[] = []
    const reconnects: Array<string | undefined> = []
    await followSse(`http://127.0.0.1:${port}/events`, {
      retryMs: 10,
      isFinal: (m) => JSON.parse(m.data).final === true,
      onMessage: (m) => got.push(JSON.parse(m.data).id),
      onReconnect: (id) => reconnects.push(id),
    })
    expect(got).toEqual([1, 2, 3, 4, 5]) // nothing lost, nothing twice
    expect(seenHeaders).toEqual([undefined, '2'])
    expect(reconnects).toEqual(['2'])
  })

  it('throws the JSON error of a 404 instead of retrying', async () => {
    server = createServer((_req, res) => {
      res.writeHead(404, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({ error: 'not_found', detail: 'no job with id x' }))
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    await expect(
      followSse(`http://127.0.0.1:${port}/events`, { retryMs: 10, isFinal: () => false, onMessage: () => {} }),
    ).rejects.toMatchObject({ status: 404, detail: 'no job with id x' })
  })

  it('resumes after a given id from the first request on (a remounted panel)', async () => {
    const seen: Array<string | undefined> = []
    server = createServer((req, res) => {
      seen.push(req.headers['last-event-id'] as string | undefined)
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.end('id: 8\ndata: {"final":true}\n\n')
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    await followSse(`http://127.0.0.1:${port}/e`, { lastEventId: '7', isFinal: () => true, onMessage: () => {} })
    expect(seen).toEqual(['7'])
  })
})
