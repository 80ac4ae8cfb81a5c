import type { FastifyRequest } from 'fastify'
import type { Static } from 'typebox'
import type { Pagination } from './schemas.js'

export interface PageRequest {
  page: number
  perPage: number
  offset: number
}

export const DEFAULT_PER_PAGE = 50

/** Reads page/per_page from a query already validated against PageQuery. */
export function pageRequest(query: { page?: number; per_page?: number }): PageRequest {
  const page = query.page ?? 1
  const perPage = query.per_page ?? DEFAULT_PER_PAGE
  return { page, perPage, offset: (page - 1) * perPage }
}

/** The same path and query with another page number. */
function pageUrl(request: FastifyRequest, page: number): string {
  const url = new URL(request.url, 'http://localhost')
  url.searchParams.set('page', String(page))
  return `${url.pathname}${url.search}`
}

/** The pagination object of a list response; next/prev URLs keep the other query parameters. */
export function paginate(request: FastifyRequest, page: PageRequest, total: number): Static<typeof Pagination> {
  const totalPages = Math.ceil(total / page.perPage)
  return {
    total,
    page: page.page,
    per_page: page.perPage,
    total_pages: totalPages,
    next_page_url: page.page < totalPages ? pageUrl(request, page.page + 1) : null,
    prev_page_url: page.page > 1 ? pageUrl(request, Math.min(page.page - 1, Math.max(totalPages, 1))) : null,
  }
}
