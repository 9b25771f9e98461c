import { randomBytes } from 'node:crypto';
import { parseOrigins, type NewKeyOptions } from '../../accounts/keys.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { field } from '../auth.ts';
import { html, type Html } from '../html.ts';
import { csrfField, type Viewer } from '../layout.ts';

/** A problem with one field of the assistant key form, shown beside that field. */
export interface AssistantFieldError {
  field: 'assistantName' | 'assistantProject' | 'origins';
  message: string;
}

const assistantFields: readonly string[] = ['assistantName', 'assistantProject', 'origins'] satisfies AssistantFieldError['field'][];

/** Whether a form error is this form's, so each form shows only its own. */
export const isAssistantError = (error: { field: string }): error is AssistantFieldError => assistantFields.includes(error.field);

/** The form is told apart from the admin key form by its `kind` field; both post to /dashboard/keys. */
export const isAssistantForm = (form: URLSearchParams) => field(form, 'kind') === 'assistant';

function fieldError(error: AssistantFieldError | undefined, name: AssistantFieldError['field']): Html {
  return error?.field === name ? html`<p class="field-error" id="${name}-error" role="alert">${error.message}</p>` : html``;
}

function described(error: AssistantFieldError | undefined, name: AssistantFieldError['field'], hint: string): Html {
  return error?.field === name ? html` aria-invalid="true" aria-describedby="${name}-error ${hint}"` : html` aria-describedby="${hint}"`;
}

/** Assistant keys: for the docs search, pages and assistant of one project, safe to put in a web page. */
export function assistantKeyForm(viewer: Viewer, projects: ProjectRow[], error: AssistantFieldError | undefined, values: URLSearchParams | undefined): Html {
  const typed = (name: string) => (values && isAssistantForm(values) ? (values.get(name) ?? '') : '');
  const options = projects.map(
    (project) => html`<option value="${project.id}"${typed('assistantProject') === project.id ? html` selected` : ''}>${project.name}</option>`,
  );
  return html`<section aria-labelledby="generate-assistant"><h2 id="generate-assistant">Generate an assistant key</h2>
<p>An assistant key (<code>quire_dsc_…</code>) reads one project’s docs and asks its assistant, nothing else, so it may sit in a web page.</p>
<form method="post" action="/dashboard/keys" class="stack">${csrfField(viewer)}<input type="hidden" name="form" value="${randomBytes(16).toString('hex')}"><input type="hidden" name="kind" value="assistant">
<label for="assistant-name">Assistant key name</label><input id="assistant-name" name="assistantName" required maxlength="100" placeholder="Docs site assistant" value="${typed('assistantName')}"${described(error, 'assistantName', 'assistant-name-hint')}>
<p class="hint" id="assistant-name-hint">So you can tell keys apart.</p>${fieldError(error, 'assistantName')}
<label for="assistant-project">Project</label><select id="assistant-project" name="assistantProject"${described(error, 'assistantProject', 'assistant-project-hint')}>${options}</select>
<p class="hint" id="assistant-project-hint">The one project whose docs the key reads.</p>${fieldError(error, 'assistantProject')}
<label for="assistant-origins">Allowed origins (optional)</label><input id="assistant-origins" name="origins" maxlength="2000" placeholder="https://docs.example.com" value="${typed('origins')}"${described(error, 'origins', 'assistant-origins-hint')}>
<p class="hint" id="assistant-origins-hint">The sites whose pages may use the key, separated by commas. Browsers from anywhere else are refused; requests from servers are not. Leave empty to allow any site.</p>${fieldError(error, 'origins')}
<button type="submit" class="primary">Generate assistant key</button>
</form></section>`;
}

/** Reads the assistant key form; returns the field to fix when it is not valid. */
export function readAssistantForm(form: URLSearchParams, projects: ProjectRow[]): AssistantFieldError | (NewKeyOptions & { name: string }) {
  const name = field(form, 'assistantName');
  if (name === '' || name.length > 100) return { field: 'assistantName', message: 'Give the key a name of 1 to 100 characters, so you can tell keys apart.' };
  const projectId = field(form, 'assistantProject');
  if (!projects.some((project) => project.id === projectId))
    return { field: 'assistantProject', message: 'Choose one of your organization’s projects; reload the page if it is missing.' };
  try {
    const allowedOrigins = parseOrigins(field(form, 'origins'));
    return { name, kind: 'assistant', projectIds: [projectId], allowedOrigins };
  } catch (error) {
    return { field: 'origins', message: `${(error as Error).message} Or leave the field empty to allow any site.` };
  }
}
