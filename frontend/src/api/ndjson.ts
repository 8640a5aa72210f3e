// NDJSON: one JSON value per line. Network chunks split lines anywhere (even inside a
// multi-byte character), so bytes are decoded as a stream and lines are kept until whole.

export class LineSplitter {
  private buffer = ''
  private readonly decoder = new TextDecoder()

  /** Whole lines completed by this chunk (without their line endings). */
  push(chunk: Uint8Array | string): string[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true })
    const lines = this.buffer.split(/\r\n|\n|\r(?!$)/)
    this.buffer = lines.pop() ?? ''
    // A lone \r at the very end may be the first half of \r\n: keep it for the next chunk.
    return lines
  }

  /** What is left once the stream ends (a last line without a newline). */
  end(): string[] {
    const rest = (this.buffer + this.decoder.decode()).replace(/\r$/, '')
    this.buffer = ''
    return rest ? [rest] : []
  }
}

export class NdjsonParseError extends Error {
  constructor(readonly line: string) {
    super(`the stream sent a line that is not JSON: ${line.slice(0, 120)}`)
    this.name = 'NdjsonParseError'
  }
}

function parseLine<T>(line: string): T | undefined {
  if (!line.trim()) return undefined
  try {
    return JSON.parse(line) as T
  } catch {
    throw new NdjsonParseError(line)
  }
}

/** Every JSON value of an NDJSON byte stream, in order, as the lines complete. */
export async function* readNdjson<T>(stream: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const reader = stream.getReader()
  const lines = new LineSplitter()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      for (const line of lines.push(value)) {
        const item = parseLine<T>(line)
        if (item !== undefined) yield item
      }
    }
    for (const line of lines.end()) {
      const item = parseLine<T>(line)
      if (item !== undefined) yield item
    }
  } finally {
    reader.releaseLock()
  }
}
