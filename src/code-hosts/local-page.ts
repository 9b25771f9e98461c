import type { LocalChange } from './local-diff.ts';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => escapes[character]);
}

function diffLine(line: string): string {
  const kind = line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') ? 'file' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : '';
  return kind ? `<span class="${kind}">${escapeHtml(line)}</span>` : escapeHtml(line);
}

/** The change page of a job in a local repository; every piece of repository text is escaped. */
export function renderChangePage(projectName: string, change: LocalChange): string {
  const commits = change.commits.map((commit) => `<li><code>${escapeHtml(commit.id)}</code> ${escapeHtml(commit.subject)} <span class="muted">(${escapeHtml(commit.author)})</span></li>`).join('');
  const title = `${escapeHtml(change.branch)} → ${escapeHtml(change.base)}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${escapeHtml(projectName)} · Quire</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; padding: 0 1rem; color: #1f2328; }
pre { background: #f6f8fa; padding: 1rem; overflow-x: auto; font-size: 13px; }
.add { color: #116329; background: #dafbe1; } .del { color: #82071e; background: #ffebe9; }
.hunk { color: #0550ae; } .file { font-weight: bold; } .muted { color: #59636e; }
</style>
</head>
<body>
<h1>${title}</h1>
<p class="muted">${escapeHtml(projectName)}: changes of the agent job on branch <code>${escapeHtml(change.branch)}</code> against <code>${escapeHtml(change.base)}</code>.</p>
<h2>Commits</h2>
${commits ? `<ul>${commits}</ul>` : '<p>No commits yet.</p>'}
<h2>Files</h2>
<pre>${escapeHtml(change.stat) || 'No files changed.'}</pre>
<h2>Diff</h2>
<pre>${change.diff.split('\n').map(diffLine).join('\n')}</pre>
${change.truncated ? '<p><strong>The diff is cut here because it is too long to show; inspect the branch with git for the rest.</strong></p>' : ''}
</body>
</html>
`;
}
