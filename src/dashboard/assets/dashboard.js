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
