// Quire dashboard: copy buttons and the live job transcript. Everything works without this file
// except copying with one click and live updates (reloading the page shows the latest state).

function announce(message) {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = message;
  window.setTimeout(() => {
    if (region.textContent === message) region.textContent = '';
  }, 2500);
}

async function copy(button) {
  const value = button.getAttribute('data-copy');
  try {
    await navigator.clipboard.writeText(value);
    announce('Copied to the clipboard.');
  } catch {
    // Clipboard access needs HTTPS or localhost; select the text so Ctrl+C / Cmd+C copies it.
    const code = button.parentElement.querySelector('code');
    const range = document.createRange();
    range.selectNodeContents(code);
    window.getSelection().removeAllRanges();
    window.getSelection().addRange(range);
    announce('Selected: press Ctrl+C or Cmd+C to copy.');
  }
}

document.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-copy]');
  if (button) copy(button);
});

// A job page's live part follows the job's event stream: each batch of events re-renders it from the
// server (one request however many events arrived meanwhile). The stream replays the job's history
// first, older status changes included, so whether the job still runs is read from the re-rendered
// part, and the stream is closed once it no longer does.
function followJob(container) {
  if (container.getAttribute('data-status') !== 'active' || !window.EventSource) return;
  const url = container.getAttribute('data-live-url');
  const events = new window.EventSource(container.getAttribute('data-events-url'));
  let refreshing = false;
  let again = false;
  const refresh = async () => {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      const response = await window.fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (!response.ok) return;
      const status = response.headers.get('x-job-status');
      const open = [...container.querySelectorAll('details[open] summary')].map((summary) => summary.textContent);
      container.innerHTML = await response.text();
      for (const details of container.querySelectorAll('details')) if (open.includes(details.querySelector('summary')?.textContent)) details.open = true;
      if (status !== container.getAttribute('data-status')) announce(`The job is now ${status}.`);
      container.setAttribute('data-status', status);
      if (status !== 'active') events.close();
    } finally {
      refreshing = false;
      if (again) {
        again = false;
        refresh();
      }
    }
  };
  events.addEventListener('message', refresh);
  events.addEventListener('status', refresh);
}

for (const container of document.querySelectorAll('[data-live-url]')) followJob(container);

// The Assistant tab's playground: asks the dashboard's own route, which answers as the assistant's
// message operation does (the AI SDK UI message stream: server-sent events of JSON chunks), and shows
// the text as it streams, then the cited pages as links. The thread continues until "New conversation"
// (or the tab closes).
function playground(form) {
  const section = form.closest('section');
  const answer = section.querySelector('.playground-answer');
  const status = answer.querySelector('.playground-status');
  const text = answer.querySelector('.playground-text');
  const sources = answer.querySelector('.playground-sources');
  const sourcesTitle = answer.querySelector('.playground-sources-title');
  const button = form.querySelector('button[type="submit"]');
  // The thread outlives the page for the tab's session, so following a citation and coming back continues it.
  const threadSlot = `quire-playground:${form.getAttribute('data-ask-url')}`;
  const savedThread = () => {
    try {
      return JSON.parse(window.sessionStorage.getItem(threadSlot) || 'null');
    } catch {
      return null;
    }
  };
  let thread = savedThread();
  const keepThread = (value) => {
    thread = value;
    if (value) window.sessionStorage.setItem(threadSlot, JSON.stringify(value));
    else window.sessionStorage.removeItem(threadSlot);
  };

  const readError = async (response) => {
    const body = await response.text();
    const message = new window.DOMParser().parseFromString(body, 'text/html').querySelector('.notice');
    return message ? message.textContent.trim() : `The assistant answered ${response.status}; try again.`;
  };
  const addSource = (chunk) => {
    if (!/^https?:\/\//.test(chunk.url)) return;
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = chunk.url;
    link.textContent = chunk.title || chunk.url;
    item.append(link);
    sources.append(item);
    sourcesTitle.hidden = false;
  };
  const handle = (chunk) => {
    if (chunk.type === 'text-delta') text.textContent += chunk.delta;
    else if (chunk.type === 'source-url') addSource(chunk);
    else if (chunk.type === 'error') status.textContent = chunk.errorText;
    else if (chunk.type === 'finish') status.textContent = 'Answered.';
  };

  form.querySelector('[data-playground-reset]').addEventListener('click', () => {
    keepThread(null);
    answer.hidden = true;
    form.reset();
    announce('A new conversation starts with the next question.');
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const question = form.querySelector('textarea').value.trim();
    if (!question) return;
    answer.hidden = false;
    answer.setAttribute('aria-busy', 'true');
    text.textContent = '';
    sources.replaceChildren();
    sourcesTitle.hidden = true;
    status.textContent = 'Thinking…';
    button.disabled = true;
    try {
      const response = await window.fetch(form.getAttribute('data-ask-url'), {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-csrf-token': form.getAttribute('data-csrf') },
        body: JSON.stringify({ text: question, ...(thread || {}) }),
      });
      if (!response.ok) {
        status.textContent = await readError(response);
        return;
      }
      const id = response.headers.get('x-thread-id');
      const key = response.headers.get('x-thread-key');
      if (id && key) keepThread({ threadId: id, threadKey: key });
      status.textContent = 'Answering…';
      const reader = response.body.pipeThrough(new window.TextDecoderStream()).getReader();
      let buffered = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += value;
        const events = buffered.split('\n\n');
        buffered = events.pop();
        for (const event of events) {
          const data = event.replace(/^data: /, '');
          if (data && data !== '[DONE]') handle(JSON.parse(data));
        }
      }
      form.querySelector('textarea').value = '';
    } catch {
      status.textContent = 'The connection to Quire was lost; try again.';
    } finally {
      answer.setAttribute('aria-busy', 'false');
      button.disabled = false;
    }
  });
}

for (const form of document.querySelectorAll('form.assistant-playground')) playground(form);

// The analytics page's live count: asked again every 10 seconds while the page is visible, and at once
// when it becomes visible again; a hidden tab asks nothing. Without this script the count is the one
// the page was rendered with.
const realtimeEvery = 10_000;
function followRealtime(line) {
  const url = line.getAttribute('data-realtime-url');
  const refresh = async () => {
    if (document.visibilityState !== 'visible') return;
    try {
      const response = await window.fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } });
      if (!response.ok) return;
      const counts = await response.json();
      line.querySelector('#realtime-total').textContent = String(counts.total);
      line.querySelector('#realtime-human').textContent = String(counts.human);
      line.querySelector('#realtime-ai').textContent = String(counts.ai);
    } catch {
      // Offline for a moment: the next tick tries again.
    }
  };
  window.setInterval(refresh, realtimeEvery);
  document.addEventListener('visibilitychange', refresh);
}

for (const line of document.querySelectorAll('[data-realtime-url]')) followRealtime(line);
