import { describe, expect, it, afterEach } from 'vitest'
import { cleanup, render, screen } from '@testing-library/react'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { MemoryRouter } from 'react-router'
import { TurnView, type Turn } from './AnswerView'
import { turnsFromMessages } from './ChatPanel'
import type { Message } from '../../api/client'

afterEach(cleanup)

const base: Turn = {
  key: 'm1',
  question: 'And how many triplets did they train on?',
  sources: [],
  text: '',
  summary: { text: '', refused: true, refusal: 'No evidence.', claims: [], cited: [] },
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

describe('the resolved question of a follow-up', () => {
  it('says what was searched when the question was resolved', () => {
    renderTurn({ ...base, resolvedQuestion: 'And how many triplets did they train on? specter training signal' })
    expect(screen.getByTestId('answer-resolved-question').textContent).toBe(
      'Searched as: And how many triplets did they train on? specter training signal',
    )
  })

  it('shows nothing for a question searched as asked', () => {
    renderTurn({ ...base, resolvedQuestion: null })
    expect(screen.queryByTestId('answer-resolved-question')).toBeNull()
  })

  it('reads the stored answer of a reopened conversation', () => {
    const at = '2026-01-01T00:00:00Z'
    const messages: Message[] = [
      { id: 'u1', role: 'user', content: base.question, cited_sources: [], answer: null, created_at: at },
      {
        id: 'a1',
        role: 'assistant',
        content: 'No evidence.',
        cited_sources: [],
        answer: { refused: true, refusal: 'No evidence.', claims: [], passages: [], resolved_question: 'resolved text' },
        created_at: at,
      },
    ]
    const [turn] = turnsFromMessages(messages)
    expect(turn?.resolvedQuestion).toBe('resolved text')
  })
})
