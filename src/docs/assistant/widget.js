// Quire docs assistant widget: a button that opens a panel where a reader asks the project's docs a question and
// reads the streamed answer with links to the cited pages. Everything lives in a shadow root so the host page's styles
// and the widget's never meet. The model's text is only ever set as text, never as HTML.
(function () {
  var script = document.currentScript;
  if (!script) return;
  var project = script.getAttribute('data-project');
  var assistantKey = script.getAttribute('data-key');
  if (!project || !assistantKey) return;
  var endpoint = new URL('/discovery/v2/assistant/' + encodeURIComponent(project) + '/message', script.src).toString();
  var threadName = 'quire.assistant.thread.' + project;

  // The tracker's visitor id when it is there, so one reader is one fingerprint; crypto.randomUUID needs a secure context.
  function randomId() {
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    var hex = '';
    for (var index = 0; index < bytes.length; index++) hex += (bytes[index] + 256).toString(16).slice(1);
    return hex;
  }
  function stored(storage, name, fallback) {
    try {
      return storage.getItem(name) || fallback;
    } catch {
      return fallback;
    }
  }
  function store(storage, name, value) {
    try {
      if (value === null) storage.removeItem(name);
      else storage.setItem(name, value);
    } catch {
      // Without storage the widget still works: the fingerprint and the thread last as long as the page.
    }
  }
  var fingerprint = stored(localStorage, 'quire.visitor', null);
  if (!fingerprint) {
    fingerprint = randomId();
    store(localStorage, 'quire.visitor', fingerprint);
  }

  var css =
    ':host{all:initial}' +
    '*{box-sizing:border-box;font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}' +
    '.open{position:fixed;right:16px;bottom:16px;z-index:2147483000;border:0;border-radius:24px;padding:12px 18px;background:#1f4fd1;color:#fff;font-weight:600;cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.25)}' +
    'button:focus-visible,textarea:focus-visible,a:focus-visible{outline:3px solid #f5a623;outline-offset:2px}' +
    '.panel{position:fixed;right:16px;bottom:76px;z-index:2147483001;width:min(400px,calc(100vw - 32px));max-height:min(600px,calc(100vh - 96px));display:flex;flex-direction:column;background:#fff;color:#111;border:1px solid #ccd;border-radius:12px;box-shadow:0 8px 30px rgba(0,0,0,.25)}' +
    '.panel[hidden]{display:none}' +
    '.head{display:flex;align-items:center;justify-content:space-between;padding:10px 14px;border-bottom:1px solid #e3e3ea}' +
    'h2{margin:0;font-size:15px;font-weight:600}' +
    '.close{border:0;background:none;font-size:20px;line-height:1;padding:4px 8px;cursor:pointer;color:#333}' +
    '.log{flex:1;overflow-y:auto;padding:10px 14px;overflow-wrap:anywhere}' +
    '.question{margin:10px 0 4px;font-weight:600}' +
    '.answer{white-space:pre-wrap;margin:0}' +
    '.sources{margin:6px 0 0;padding-left:18px}' +
    '.sources a{color:#1f4fd1}' +
    '.error{color:#a1001f;margin:6px 0 0}' +
    'form{display:flex;gap:8px;padding:10px 14px;border-top:1px solid #e3e3ea}' +
    'textarea{flex:1;min-width:0;resize:none;height:44px;padding:8px;border:1px solid #99a;border-radius:8px;color:#111;background:#fff}' +
    '.send{border:0;border-radius:8px;padding:0 14px;background:#1f4fd1;color:#fff;font-weight:600;cursor:pointer}' +
    '.send:disabled{opacity:.6;cursor:default}';

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    for (var name in attributes) node.setAttribute(name, attributes[name]);
    if (text) node.textContent = text;
    return node;
  }

  var host = element('div', { 'data-quire-assistant': '' });
  var root = host.attachShadow({ mode: 'open' });
  root.appendChild(element('style', {}, css));
  var opener = element('button', { type: 'button', class: 'open', 'aria-haspopup': 'dialog', 'aria-expanded': 'false' }, 'Ask the docs');
  var panel = element('div', { class: 'panel', role: 'dialog', 'aria-labelledby': 'quire-assistant-title', hidden: '' });
  var head = element('div', { class: 'head' });
  var closer = element('button', { type: 'button', class: 'close', 'aria-label': 'Close the assistant' }, '×');
  head.appendChild(element('h2', { id: 'quire-assistant-title' }, 'Ask the docs'));
  head.appendChild(closer);
  var log = element('div', { class: 'log', 'aria-live': 'polite', 'aria-atomic': 'false' });
  var form = element('form', {});
  var field = element('textarea', { 'aria-label': 'Your question', placeholder: 'Ask a question about these docs', maxlength: '4000' });
  var send = element('button', { type: 'submit', class: 'send' }, 'Send');
  form.appendChild(field);
  form.appendChild(send);
  panel.appendChild(head);
  panel.appendChild(log);
  panel.appendChild(form);
  root.appendChild(opener);
  root.appendChild(panel);

  function open() {
    panel.hidden = false;
    opener.setAttribute('aria-expanded', 'true');
    field.focus();
  }
  function close() {
    panel.hidden = true;
    opener.setAttribute('aria-expanded', 'false');
    opener.focus();
  }
  opener.addEventListener('click', function () {
    if (panel.hidden) open();
    else close();
  });
  closer.addEventListener('click', close);
  panel.addEventListener('keydown', function (event) {
    if (event.key === 'Escape') close();
  });
  field.addEventListener('keydown', function (event) {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  // One answer on screen: its text grows as deltas arrive; cited pages and errors are added below it.
  function turnView(question) {
    log.appendChild(element('p', { class: 'question' }, question));
    var answer = element('p', { class: 'answer' });
    log.appendChild(answer);
    var sources = null;
    return {
      text: function (delta) {
        answer.textContent += delta;
        log.scrollTop = log.scrollHeight;
      },
      source: function (url, title) {
        // Only web addresses become links, so an answer cannot carry a javascript: link into the host page.
        if (!/^https?:\/\//i.test(url)) return;
        if (!sources) {
          sources = element('ul', { class: 'sources', 'aria-label': 'Sources' });
          log.appendChild(sources);
        }
        var item = element('li', {});
        item.appendChild(element('a', { href: url, target: '_blank', rel: 'noopener' }, title || url));
        sources.appendChild(item);
      },
      error: function (message) {
        log.appendChild(element('p', { class: 'error', role: 'alert' }, message));
      },
    };
  }

  function handleChunk(chunk, view) {
    if (chunk.type === 'text-delta') view.text(chunk.delta);
    else if (chunk.type === 'source-url') view.source(chunk.url, chunk.title);
    else if (chunk.type === 'error') view.error('The assistant could not finish this answer: ' + chunk.errorText);
  }

  // Server-sent events: parts end with a blank line; each `data:` line holds one JSON chunk, the last `[DONE]`.
  async function readStream(response, view) {
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = '';
    for (;;) {
      var next = await reader.read();
      buffer += decoder.decode(next.value || new Uint8Array(), { stream: !next.done });
      var lines = buffer.split('\n');
      buffer = next.done ? '' : lines.pop();
      for (var index = 0; index < lines.length; index++) {
        var line = lines[index];
        if (line.indexOf('data:') !== 0) continue;
        var data = line.slice(5).trim();
        if (data && data !== '[DONE]') handleChunk(JSON.parse(data), view);
      }
      if (next.done) return;
    }
  }

  async function failure(response) {
    var message = 'The assistant answered with HTTP ' + response.status + '.';
    try {
      var body = await response.json();
      if (body && body.error) message = body.error;
    } catch {
      // A body that is not JSON leaves the status as the explanation.
    }
    if (response.status === 404) store(sessionStorage, threadName, null);
    return message;
  }

  async function ask(question) {
    var view = turnView(question);
    var thread = JSON.parse(stored(sessionStorage, threadName, 'null'));
    var body = {
      fp: fingerprint,
      currentPath: location.pathname.slice(0, 200),
      messages: [{ id: randomId(), role: 'user', parts: [{ type: 'text', text: question }] }],
    };
    if (thread) {
      body.threadId = thread.id;
      body.threadKey = thread.key;
    }
    try {
      var response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + assistantKey, 'x-quire-assistant': 'web' },
        body: JSON.stringify(body),
      });
      if (!response.ok) return view.error(await failure(response));
      var threadKey = response.headers.get('x-thread-key');
      if (threadKey) store(sessionStorage, threadName, JSON.stringify({ id: response.headers.get('x-thread-id'), key: threadKey }));
      await readStream(response, view);
    } catch {
      view.error('The assistant could not be reached. Check the connection and try again.');
    }
  }

  form.addEventListener('submit', async function (event) {
    event.preventDefault();
    var question = field.value.trim();
    if (!question || send.disabled) return;
    field.value = '';
    send.disabled = true;
    await ask(question);
    send.disabled = false;
    field.focus();
  });

  function mount() {
    document.body.appendChild(host);
  }
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount);
})();
