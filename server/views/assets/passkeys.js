// The dashboard's passkey buttons (docs/dashboard.md#passkeys). Without JavaScript, or in a
// browser without WebAuthn, the forms stay hidden and the note says why; the password and TOTP
// work without it. With it: ask the daemon for options (a challenge kept on the session), let
// the browser make or use the passkey (@simplewebauthn/browser, served as webauthn.js), then post
// its answer as the form's `response` field, an ordinary form post with its CSRF token.
(function () {
  'use strict';
  var lib = window.SimpleWebAuthnBrowser;
  if (!lib || !lib.browserSupportsWebAuthn()) return;
  var forms = document.querySelectorAll('form[data-passkey]');
  for (var i = 0; i < forms.length; i++) wire(forms[i]);

  function wire(form) {
    var button = form.querySelector('button');
    var status = form.querySelector('[data-passkey-status]');
    var missing = form.parentNode.querySelector('[data-passkey-missing]');
    form.hidden = false;
    if (missing) missing.hidden = true;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      button.disabled = true;
      status.textContent = '';
      var body = new URLSearchParams();
      body.set('csrf', form.elements.csrf.value);
      window
        .fetch(form.getAttribute('data-options'), {
          method: 'POST',
          body: body,
          credentials: 'same-origin',
          headers: { Accept: 'application/json' },
        })
        .then(function (answer) {
          // A refusal is the error body every answer has; a page (403, a timed-out form) has none.
          return answer.json().then(
            function (json) {
              if (!answer.ok) throw new Error(json.message);
              return json;
            },
            function () {
              throw new Error(answer.status + ' ' + answer.statusText);
            },
          );
        })
        .then(function (options) {
          return form.getAttribute('data-passkey') === 'register'
            ? lib.startRegistration({ optionsJSON: options })
            : lib.startAuthentication({ optionsJSON: options });
        })
        .then(function (credential) {
          form.elements.response.value = JSON.stringify(credential);
          form.submit();
        })
        .catch(function (err) {
          status.textContent = err && err.message ? err.message : String(err);
          button.disabled = false;
        });
    });
  }
})();
