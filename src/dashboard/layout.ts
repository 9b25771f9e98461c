import type { FastifyReply } from 'fastify';
import { canManage } from '../accounts/people/people.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';
import type { PersonRole } from '../storage/tables/people.ts';
import { html, type Html } from './html.ts';

/** Who is looking at a page: their session and the token every form of the page must carry. */
export interface Viewer {
  sessionId: string;
  orgId: string;
  csrf: string;
  /** The person signed in; null for a session opened by a `quire dashboard link` (the operator). */
  personId: string | null;
  /** Shown in the navigation: the person's name, or "Operator" for a link session. */
  name: string;
  /** A link session acts as an owner. */
  role: PersonRole;
}

export type Section = 'keys' | 'projects' | 'connections' | 'people' | 'account';

export interface PageOptions {
  title: string;
  viewer: Viewer | null;
  section?: Section;
  body: Html;
}

/** The hidden field every form carries; the server refuses posts without it. */
export function csrfField(viewer: Viewer): Html {
  return html`<input type="hidden" name="csrf" value="${viewer.csrf}">`;
}

function navigation(viewer: Viewer, section: Section | undefined): Html {
  const link = (href: string, label: string, name: Section) =>
    html`<li><a href="${href}"${name === section ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav aria-label="Main">
    <ul>${link('/dashboard/keys', 'API keys', 'keys')}${link('/dashboard/projects', 'Projects', 'projects')}${
      canManage(viewer.role) ? html`${link('/dashboard/connections', 'Connections', 'connections')}${link('/dashboard/people', 'People', 'people')}` : ''
    }${link('/dashboard/account', viewer.name, 'account')}</ul>
    <form method="post" action="/dashboard/sign-out">${csrfField(viewer)}<button type="submit" class="link">Sign out</button></form>
  </nav>`;
}

export function layout({ title, viewer, section, body }: PageOptions): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Quire</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script defer src="/dashboard/assets/dashboard.js"></script>
<script defer src="/dashboard/assets/passkeys.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="/dashboard">Quire</a>${viewer ? navigation(viewer, section) : ''}</header>
<main id="main">
<h1>${title}</h1>
${body}
</main>
<p class="announcer" role="status" aria-live="polite" id="announcer"></p>
</body>
</html>`;
}

/** Tabs of a project's pages. */
export function projectTabs(project: ProjectRow, current: 'settings' | 'docs' | 'assistant' | 'jobs' | 'analytics' | 'feedback' | 'gaps' | 'webhooks'): Html {
  const base = `/dashboard/projects/${project.id}`;
  const tab = (href: string, label: string, name: typeof current) =>
    html`<li><a href="${href}"${name === current ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav class="tabs" aria-label="Project ${project.name}"><ul>${tab(base, 'Settings', 'settings')}${tab(`${base}/docs`, 'Docs', 'docs')}${tab(`${base}/assistant`, 'Assistant', 'assistant')}${tab(`${base}/jobs`, 'Jobs', 'jobs')}${tab(`${base}/analytics`, 'Analytics', 'analytics')}${tab(`${base}/feedback`, 'Feedback', 'feedback')}${tab(`${base}/gaps`, 'Gaps', 'gaps')}${tab(`${base}/webhooks`, 'Webhooks', 'webhooks')}</ul></nav>`;
}

export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page.text);
}

/** A message box: `error` is announced to screen readers at once. */
export function notice(kind: 'error' | 'success' | 'warning', message: Html | string): Html {
  return html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${message}</div>`;
}
