import type { NextFunction, Request, Response } from 'express';

/**
 * The console's and the share page's policy: their own scripts only (no inline script, no eval), styles
 * inline as the component library sets them, requests to this server only, never framed.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Swagger UI (/docs): its own scripts and styles, the document it loads, never framed. */
const DOCS_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** API answers are data: nothing in them runs, loads or frames. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Headers on every answer: no framing (clickjacking the console or a share page), no MIME sniffing
 * (an uploaded document's text served as a script), no Referer leaking console or share URLs, and no
 * embedding of API answers by another site's page (`<script src=…/session>`).
 */
export function securityHeaders() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const page = req.path === '/ui' || req.path.startsWith('/ui/');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Content-Security-Policy', page ? PAGE_CSP : req.path.startsWith('/docs') ? DOCS_CSP : API_CSP);
    if (!page) res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    next();
  };
}
