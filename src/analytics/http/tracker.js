// Quire page-view, feedback and search tracker. No cookies: a random id kept in this site's localStorage identifies the
// browser (first-party, never shared across sites); without storage each page load gets a new id.
(function () {
  var script = document.currentScript;
  if (!script) return;
  var project = script.getAttribute('data-project');
  var endpoint = new URL('/v1/collect', script.src).toString();
  var key = 'quire.visitor';
  // crypto.getRandomValues works on plain-HTTP pages too; crypto.randomUUID exists only in secure contexts.
  function randomId() {
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    var hex = '';
    for (var index = 0; index < bytes.length; index++) hex += (bytes[index] + 256).toString(16).slice(1);
    return hex;
  }
  var visitor;
  try {
    visitor = localStorage.getItem(key);
    if (!visitor) {
      visitor = randomId();
      localStorage.setItem(key, visitor);
    }
  } catch {
    visitor = randomId();
  }
  // Of the query string only utm_source is sent: it names the site that linked here (chatgpt.com).
  function pageAddress() {
    var source = /[?&]utm_source=([^&#]+)/.exec(location.search);
    return location.origin + location.pathname + (source ? '?utm_source=' + source[1] : '');
  }
  function post(fields) {
    fields.project = project;
    fields.url = pageAddress();
    fields.visitorId = visitor;
    var body = JSON.stringify(fields);
    // text/plain keeps the beacon a simple request: no CORS preflight, nothing to read back. The
    // referrer policy "origin" makes browsers send this page's Origin even where the page's own
    // policy is no-referrer (they would send "Origin: null", which the collect endpoint refuses).
    if (window.fetch) {
      fetch(endpoint, { method: 'POST', body: body, keepalive: true, mode: 'no-cors', referrerPolicy: 'origin', headers: { 'content-type': 'text/plain' } });
    } else if (navigator.sendBeacon) {
      navigator.sendBeacon(endpoint, body);
    }
  }
  function send() {
    post({ referrer: document.referrer || undefined });
  }
  // quire('feedback', {...}) and quire('search', {...}) for a site's feedback widget and search box;
  // a search gets a searchId (returned) so its click can be sent later with the same one.
  function command(kind, data) {
    if (kind !== 'feedback' && kind !== 'search') return;
    data = Object.assign({}, data);
    if (kind === 'search' && !data.searchId) data.searchId = randomId();
    post({ kind: kind, data: data });
    return data.searchId;
  }
  var queued = (window.quire && window.quire.q) || [];
  window.quire = command;
  for (var index = 0; index < queued.length; index++) command.apply(null, queued[index]);
  send();
  // Single-page sites change the path without loading a page.
  var last = location.pathname;
  window.addEventListener('popstate', function () {
    if (location.pathname !== last) {
      last = location.pathname;
      send();
    }
  });
})();
