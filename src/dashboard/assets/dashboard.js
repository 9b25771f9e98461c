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

// A job page's live part is re-rendered by the server while the job is active.
function followJob(container) {
  const url = container.getAttribute('data-live-url');
  const poll = async () => {
    if (container.getAttribute('data-status') !== 'active') return;
    try {
      const response = await window.fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (response.ok) {
        const status = response.headers.get('x-job-status');
        container.innerHTML = await response.text();
        container.setAttribute('data-status', status);
        if (status !== 'active') announce(`The job is now ${status}.`);
      }
    } finally {
      window.setTimeout(poll, 1500);
    }
  };
  window.setTimeout(poll, 1500);
}

for (const container of document.querySelectorAll('[data-live-url]')) followJob(container);
