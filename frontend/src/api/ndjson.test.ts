import { describe, expect, it } from 'vitest'
import { LineSplitter, NdjsonParseError, readNdjson } from './ndjson'

function streamOf(chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === 'string' ? encoder.encode(c) : c)
      controller.close()
    },
  })
}

async function collect<T>(gen: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of gen) out.push(x)
  return out
}

describe('readNdjson', () => {
  it('joins lines split across chunks, anywhere', async () => {
    const events = await collect(
      readNdjson(streamOf(['{"type":"me', 'ta","sources":[{"n":1}]}\n{"type":"tok', 'en","text":"a "}\n', '{"type":"done"}\n'])),
    )
    expect(events).toEqual([{ type: 'meta', sources: [{ n: 1 }] }, { type: 'token', text: 'a ' }, { type: 'done' }])
  })

  it('keeps a multi-byte character cut between chunks', async () => {
    const bytes = new TextEncoder().encode('{"text":"naïve — “quoted”"}\n')
    const cut = bytes.indexOf(0xc3) + 1 // inside "ï"
    const events = await collect(readNdjson(streamOf([bytes.slice(0, cut), bytes.slice(cut)])))
    expect(events).toEqual([{ text: 'naïve — “quoted”' }])
  })

  it('reads a last line without a newline, skips blank lines, accepts CRLF', async () => {
    const events = await collect(readNdjson(streamOf(['{"a":1}\r', '\n\n{"b":2}\r\n', '{"c":3}'])))
    expect(events).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }])
  })

  it('says which line is not JSON', async () => {
    await expect(collect(readNdjson(streamOf(['{"a":1}\n<html>oops\n'])))).rejects.toBeInstanceOf(NdjsonParseError)
  })
})

describe('LineSplitter', () => {
  it('does not treat a CR at a chunk end as a line end before it knows what follows', () => {
    const s = new LineSplitter()
    expect(s.push('one\r')).toEqual([])
    expect(s.push('\ntwo\rthree\n')).toEqual(['one', 'two', 'three'])
    expect(s.end()).toEqual([])
  })
})
