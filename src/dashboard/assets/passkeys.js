// Quire dashboard: passkeys (WebAuthn). The server sends options as JSON with base64url strings;
// the browser's API wants ArrayBuffers, and its answer goes back as base64url JSON.

function fromBase64url(value) {
  const base64 = value
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(value.length / 4) * 4, '=');
  return Uint8Array.from(window.atob(base64), (character) => character.charCodeAt(0)).buffer;
}

function toBase64url(buffer) {
  let text = '';
  for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
  return window.btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function credentialJson(credential) {
  const response = credential.response;
  const json = {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {},
  };
  for (const name of ['clientDataJSON', 'attestationObject', 'authenticatorData', 'signature', 'userHandle']) {
    if (response[name]) json.response[name] = toBase64url(response[name]);
  }
  if (typeof response.getTransports === 'function') json.response.transports = response.getTransports();
  if (credential.authenticatorAttachment) json.authenticatorAttachment = credential.authenticatorAttachment;
  return json;
}

async function post(url, body, csrf) {
  const response = await window.fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({ error: 'The server did not answer as expected; reload the page and try again.' }));
  if (!response.ok) throw new Error(answer.error);
  return answer;
}

function showError(button, message) {
  const box = button.parentElement.querySelector('[data-passkey-error]');
  if (!box) return;
  box.textContent = message;
  box.hidden = false;
}

async function signIn(button) {
  const csrf = button.getAttribute('data-csrf');
  const { handle, options } = await post('/dashboard/sign-in/passkey/options', { csrf }, csrf);
  const credential = await navigator.credentials.get({
    publicKey: {
      ...options,
      challenge: fromBase64url(options.challenge),
      allowCredentials: (options.allowCredentials || []).map((entry) => ({ ...entry, id: fromBase64url(entry.id) })),
    },
  });
  const { redirect } = await post('/dashboard/sign-in/passkey', { csrf, handle, response: credentialJson(credential) }, csrf);
  window.location.assign(redirect);
}

async function register(button) {
  const csrf = button.getAttribute('data-csrf');
  const { handle, options } = await post('/dashboard/account/passkeys/options', {}, csrf);
  const credential = await navigator.credentials.create({
    publicKey: {
      ...options,
      challenge: fromBase64url(options.challenge),
      user: { ...options.user, id: fromBase64url(options.user.id) },
      excludeCredentials: (options.excludeCredentials || []).map((entry) => ({ ...entry, id: fromBase64url(entry.id) })),
    },
  });
  const { redirect } = await post('/dashboard/account/passkeys', { handle, response: credentialJson(credential) }, csrf);
  window.location.assign(redirect);
}

document.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-passkey-sign-in], button[data-passkey-register]');
  if (!button) return;
  if (!window.PublicKeyCredential) {
    showError(button, 'This browser does not support passkeys here (they need https, or http://localhost).');
    return;
  }
  const action = button.hasAttribute('data-passkey-sign-in') ? signIn : register;
  action(button).catch((error) => showError(button, error.name === 'NotAllowedError' ? 'The passkey request was cancelled or timed out.' : error.message));
});
