import { describe, expect, it, afterEach, vi } from 'vitest'
import { api } from '../../api/client'
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { TurnView, type Turn } from './AnswerView'
import { Markdown } from '../../lib/Markdown'
import { answerMarkdown } from './copy'

afterEach(cleanup)

function Where() {
  const l = useLocation()
  return <p data-testid="where">{l.pathname + l.search}</p>
}

const passage1 = 'Background first. The resulting literature graph consists of more than 280M nodes, representing papers. More text after it.'

const turn: Turn = {
  key: 'm1',
  question: 'How large is the graph?',
  sources: [
    { n: 1, document: 'Literature Graph', excerpt: passage1.slice(0, 40), text: passage1, page: 1, source_id: 's1', chunk_id: 7 },
    { n: 2, document: 'Other paper', excerpt: 'x', text: 'The graph uses $O(n^2)$ memory in the worst case here.', page: 4, source_id: 's2', chunk_id: 9 },
  ],
  text: '',
  summary: {
    text: '',
    refused: false,
    claims: [
      { text: 'The resulting literature graph consists of more than 280M nodes', citations: [1], quote: 'The resulting literature graph consists of more than 280M nodes', locations: [] },
      { text: 'It needs quadratic memory $O(n^2)$', citations: [2, 1], quote: 'The graph uses $O(n^2)$ memory', locations: [] },
    ],
    refusal: null,
    cited: [1, 2],
  },
  error: null,
  streaming: false,
}

function renderTurn(t: Turn) {
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter>
        <TurnView turn={t} workspaceId="w1" />
      </MemoryRouter>
    </QueryClientProvider>,
  )
}

describe('citations in an answer', () => {
  it('renders every [n] of every claim as a button with data-n', () => {
    renderTurn(turn)
    const claims = screen.getAllByTestId('claim')
    expect(claims).toHaveLength(2)
    expect(within(claims[0]!).getAllByTestId('citation').map((b) => b.dataset.n)).toEqual(['1'])
    expect(within(claims[1]!).getAllByTestId('citation').map((b) => b.dataset.n)).toEqual(['2', '1'])
  })

  it('shows each claim’s quote once: as the claim when they are the same, else beneath it', () => {
    renderTurn(turn)
    const [first, second] = screen.getAllByTestId('claim')
    expect(within(first!).queryByTestId('claim-quote')).toBeNull()
    expect(first!.textContent?.match(/280M nodes/g)).toHaveLength(1)
    expect(within(second!).getAllByTestId('claim-quote')).toHaveLength(1)
  })

  it('clicking [n] opens the reader at the cited page, no popover first', async () => {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <MemoryRouter initialEntries={['/w/w1/chat']}>
          <Routes>
            <Route path="/w/w1/chat" element={<TurnView turn={turn} workspaceId="w1" />} />
            <Route path="/w/w1/read/:sourceId" element={<Where />} />
          </Routes>
        </MemoryRouter>
      </QueryClientProvider>,
    )
    fireEvent.click(within(screen.getAllByTestId('claim')[0]!).getByTestId('citation'))
    expect((await screen.findByTestId('where')).textContent).toBe('/w/w1/read/s1?page=1&n=1')
    expect(screen.queryByTestId('passage')).toBeNull()
  })

  it('hovering [n] previews the cited passage with the quote highlighted inside it', async () => {
    renderTurn(turn)
    fireEvent.pointerEnter(within(screen.getAllByTestId('claim')[0]!).getByTestId('citation'))
    const mark = await screen.findByTestId('passage-quote')
    expect(mark.textContent).toBe('The resulting literature graph consists of more than 280M nodes')
    expect(screen.getByTestId('passage-text').textContent).toBe(passage1)
  })

  it('a refusal is shown as one, with what was searched', () => {
    renderTurn({ ...turn, summary: { text: '', claims: [], refused: true, refusal: 'I found no evidence. Searched 10 passages.', cited: [] } })
    expect(screen.getByTestId('refusal').textContent).toContain('Searched 10 passages')
    expect(screen.queryAllByTestId('claim')).toHaveLength(0)
  })

  it('closest evidence: the evidence first, each sentence marked inside its passage, the outcome and its reason, no claim', async () => {
    const evidence = [
      { text: 'The resulting literature graph consists of more than 280M nodes, representing papers.', n: 1, source_id: 's1', chunk_id: 7, page: 3, document: 'Literature Graph', start: 18, end: 104, passage: passage1, support: 0.55, location: null },
    ]
    const closest: Turn = {
      ...turn,
      summary: { text: '', claims: [], refused: true, refusal: 'Closest evidence — not confirmed as an answer: the evidence scored 0.55, below the calibrated threshold of 0.61.', cited: [], outcome: 'closest', reason: 'not confirmed as an answer: the evidence scored 0.55, below the calibrated threshold of 0.61', evidence },
    }
    render(
      <QueryClientProvider client={new QueryClient()}>
        <MemoryRouter initialEntries={['/w/w1/chat']}>
          <Routes>
            <Route path="/w/w1/chat" element={<TurnView turn={closest} workspaceId="w1" />} />
            <Route path="/w/w1/read/:sourceId" element={<Where />} />
          </Routes>
        </MemoryRouter>
      </QueryClientProvider>,
    )
    const block = screen.getByTestId('answer-evidence')
    const outcome = screen.getByTestId('answer-outcome')
    // the evidence comes before the outcome line in the document
    expect(block.compareDocumentPosition(outcome) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()
    expect(within(block).getByTestId('evidence-sentence').textContent).toBe(passage1.slice(18, 104))
    expect(within(block).getByTestId('evidence-item').textContent).toContain('Background first.')
    expect(block.textContent).toContain('Literature Graph · p. 3')
    expect(outcome.dataset.outcome).toBe('closest')
    expect(outcome.textContent).toContain('Closest evidence — not confirmed as an answer')
    expect(outcome.textContent).toContain('below the calibrated threshold of 0.61')
    expect(screen.queryAllByTestId('claim')).toHaveLength(0)
    fireEvent.click(within(block).getByTestId('evidence-open'))
    expect((await screen.findByTestId('where')).textContent).toBe('/w/w1/read/s1?page=3&n=1')
  })

  it('nothing relevant: said plainly, the refusal text kept, no evidence block', () => {
    renderTurn({ ...turn, summary: { text: '', claims: [], refused: true, refusal: 'I found no evidence. Searched 10 passages.', cited: [], outcome: 'nothing', evidence: [] } })
    expect(screen.getByTestId('answer-outcome').dataset.outcome).toBe('nothing')
    expect(screen.getByTestId('answer-outcome').textContent).toBe('Nothing relevant in your sources')
    expect(screen.getByTestId('refusal').textContent).toContain('Searched 10 passages')
    expect(screen.queryByTestId('answer-evidence')).toBeNull()
  })

  it('copies as Markdown with references of the cited passages only', () => {
    const md = answerMarkdown(turn.question, turn.summary!, [...turn.sources, { n: 3, document: 'Uncited', excerpt: '' }])
    expect(md).toContain('- The resulting literature graph consists of more than 280M nodes [1]')
    expect(md).toContain('[2] Other paper (p. 4)')
    expect(md).not.toContain('Uncited')
  })
})

describe('Markdown with math', () => {
  it('typesets inline and display math with KaTeX and keeps citations clickable', () => {
    const { container } = render(<Markdown text={'Energy $E = mc^2$ [1].\n\n$$\n\\sum_{i=1}^n i\n$$'} renderCitation={(n) => <button data-testid="citation" data-n={n}>{n}</button>} />)
    expect(container.querySelectorAll('.katex').length).toBe(2)
    expect(container.querySelector('.katex-display')).not.toBeNull()
    expect(container.querySelector('.katex-mathml annotation')?.textContent).toBe('E = mc^2')
    expect(screen.getByTestId('citation').dataset.n).toBe('1')
  })
})

describe('the Pin button', () => {
  it('is on an answered answer with a stored message, not on a refusal', () => {
    renderTurn({ ...turn, messageId: 'm1' })
    expect(screen.getByTestId('answer-pin').textContent).toBe('Pin to canvas')
    expect(screen.getByTestId('answer-pin').getAttribute('aria-pressed')).toBe('false')
    cleanup()
    renderTurn({ ...turn, messageId: 'm1', summary: { text: '', claims: [], refused: true, refusal: 'No evidence.', cited: [] } })
    expect(screen.queryByTestId('answer-pin')).toBeNull()
    cleanup()
    renderTurn({ ...turn, messageId: 'm1', pinned: true })
    expect(screen.getByTestId('answer-pin').textContent).toBe('Unpin from canvas')
  })

  it('pins through the API and says so', async () => {
    const post = vi.spyOn(api, 'POST').mockResolvedValue({
      data: { id: 'm1', role: 'assistant', content: '', cited_sources: [], answer: null, created_at: '2026-01-01T00:00:00Z', pinned_at: '2026-01-01T00:00:01Z' },
      error: undefined,
      response: new Response(null, { status: 200 }),
    } as never)
    try {
      renderTurn({ ...turn, messageId: 'm1' })
      fireEvent.click(screen.getByTestId('answer-pin'))
      await screen.findByText('Unpin from canvas')
      expect(post).toHaveBeenCalledWith('/api/messages/{message_id}/pin', { params: { path: { message_id: 'm1' } } })
    } finally {
      post.mockRestore()
    }
  })
})
