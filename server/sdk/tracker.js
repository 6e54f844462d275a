/*! affiliated tracker: keeps a referral code (and click id) in first-party cookies, reports page
 * views and leads to the daemon serving this file. No third parties, no API key. docs/tracking.md */
(function (window, document) {
  'use strict';
  if (window.affiliated && window.affiliated.version) return; // the tag is on the page twice

  var COOKIE = 'affiliated_ref';
  var SESSION_KEY = 'affiliated_session';
  var CODE = /^[A-Za-z0-9]{2,32}$/;
  var CLICK = /^[0-9A-HJKMNP-TV-Z]{26}$/;
  var DAY_SECONDS = 86400;

  var script = document.currentScript || document.querySelector('script[data-campaign]');
  var data = (script && script.dataset) || {};
  var campaign = data.campaign;
  // The daemon's address is wherever this file came from (it may sit under a path prefix).
  var daemon = ((script && script.src) || '').split(/\/v1\/sdk\/tracker\.js/)[0];
  var params = (data.param || 'ref,via').split(',');
  var cookieDays = Number(data.cookieDays) > 0 ? Number(data.cookieDays) : 0;
  var nav = window.navigator;
  var blocked =
    data.respectDnt !== undefined &&
    data.respectDnt !== 'false' &&
    (nav.doNotTrack === '1' || window.doNotTrack === '1' || nav.globalPrivacyControl === true);

  var referral = readCookie(COOKIE, CODE);
  var clickId = referral ? readCookie('affiliated_click', CLICK) : null;
  var isReady = false;
  var waiting = [];
  var sessionId;
  var api = { version: 1, referral: referral, clickId: clickId, track: track, ready: ready };
  window.affiliated = api;
  if (!campaign) console.warn('affiliated: add data-campaign="PUBLIC_ID" to the tracker script tag');

  function readCookie(name, pattern) {
    var match = document.cookie.match(new RegExp('(?:^|;\\s*)' + name + '=([A-Za-z0-9]+)'));
    return match && pattern.test(match[1]) ? match[1] : null;
  }

  function param(name, pattern) {
    var value = new URLSearchParams(window.location.search).get(name);
    return value && pattern.test(value) ? value : null;
  }

  // Host-only unless data-cookie-domain says otherwise; Lax so a link from another site keeps it.
  function writeCookie(name, value, days) {
    document.cookie =
      name +
      '=' +
      value +
      '; Max-Age=' +
      Math.round(days * DAY_SECONDS) +
      '; Path=/; SameSite=Lax' +
      (window.location.protocol === 'https:' ? '; Secure' : '') +
      (data.cookieDomain ? '; Domain=' + data.cookieDomain : '');
  }

  function landedCode() {
    for (var i = 0; i < params.length; i++) {
      var code = param(params[i].trim(), CODE);
      if (code) return code;
    }
    return null;
  }

  function session() {
    if (sessionId) return sessionId;
    try {
      sessionId = window.sessionStorage.getItem(SESSION_KEY);
    } catch {
      // no storage
    }
    if (!sessionId) {
      var bytes = window.crypto.getRandomValues(new Uint8Array(16));
      sessionId = Array.prototype.map
        .call(bytes, function (b) {
          return (b + 256).toString(16).slice(1);
        })
        .join('');
      try {
        window.sessionStorage.setItem(SESSION_KEY, sessionId);
      } catch {
        // no storage
      }
    }
    return sessionId;
  }

  function clip(text, max) {
    return text ? String(text).slice(0, max) : undefined;
  }

  function request(path, body) {
    return window
      .fetch(daemon + path, {
        method: body ? 'POST' : 'GET',
        headers: body ? { 'Content-Type': 'application/json' } : {},
        body: body && JSON.stringify(body),
        credentials: 'omit', // the shop's cookies never travel to the daemon
        keepalive: !!body,
      })
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .catch(function () {
        return null;
      });
  }

  // Resolves true when the daemon stored the event.
  function send(type, properties) {
    var extra = properties && typeof properties === 'object' ? properties : {};
    var props = { url: clip(window.location.href, 2048), referrer: clip(document.referrer, 2048) };
    for (var name in extra) if (Object.prototype.hasOwnProperty.call(extra, name)) props[name] = extra[name];
    var screen = window.screen || {};
    return request('/v1/sdk/events', {
      events: [
        {
          event_type: type,
          campaign_id: campaign,
          affiliate_id: referral,
          click_id: clickId || undefined,
          session_id: session(),
          properties: props,
          device_info: {
            user_agent: clip(nav.userAgent, 1024),
            language: clip(nav.language, 64),
            screen_width: Math.max(0, Math.round(screen.width || 0)),
            screen_height: Math.max(0, Math.round(screen.height || 0)),
          },
        },
      ],
    }).then(function (answer) {
      return !!answer && answer.accepted === 1;
    });
  }

  function track(type, properties) {
    return new Promise(function (resolve) {
      ready(function () {
        var allowed = type === 'lead' || type === 'page_view';
        resolve(allowed && referral && campaign && !blocked ? send(type, properties) : false);
      });
    });
  }

  function ready(callback) {
    if (typeof callback !== 'function') return;
    if (isReady) run(callback);
    else waiting.push(callback);
  }

  function run(callback) {
    try {
      callback(api);
    } catch (err) {
      setTimeout(function () {
        throw err;
      });
    }
  }

  function fill(root) {
    if (!referral || !root || !root.querySelectorAll) return;
    var inputs = root.querySelectorAll('input[name="affiliated_ref"]');
    for (var i = 0; i < inputs.length; i++) inputs[i].value = referral;
  }

  // Stripe links, buttons and tables carry the code to the payment; a value set stays.
  function stripe() {
    var found = document.querySelectorAll('a[href^="https://buy.stripe.com/"],stripe-buy-button,stripe-pricing-table');
    for (var i = 0; i < found.length; i++) {
      var el = found[i];
      if (el.href) {
        var url = new window.URL(el.href);
        if (!url.searchParams.has('client_reference_id')) {
          url.searchParams.set('client_reference_id', referral);
          el.href = url.href;
        }
      } else if (!el.hasAttribute('client-reference-id')) el.setAttribute('client-reference-id', referral);
    }
  }

  function settle() {
    isReady = true;
    api.referral = referral;
    api.clickId = clickId;
    fill(document);
    if (referral) {
      stripe();
      new window.MutationObserver(stripe).observe(document.documentElement, { childList: true, subtree: true });
    }
    waiting.splice(0).forEach(run);
    document.dispatchEvent(new CustomEvent('affiliated:ready', { detail: api }));
  }

  function whenDomReady(callback) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', callback);
    else callback();
  }

  document.addEventListener(
    'submit',
    function (event) {
      fill(event.target);
    },
    true,
  );

  // Only a code the daemon knows as an active affiliate's is kept: last click wins.
  var code = campaign && !blocked ? landedCode() : null;
  var decided = code
    ? request('/v1/sdk/referrals/' + code + '?campaign=' + encodeURIComponent(campaign)).then(function (answer) {
        if (!answer || !answer.active || !CODE.test(answer.referralId)) return false;
        referral = answer.referralId;
        var days = cookieDays || answer.cookieDays || 30;
        writeCookie(COOKIE, referral, days);
        clickId = param('click_id', CLICK);
        writeCookie('affiliated_click', clickId || '', clickId ? days : 0); // none: the old one goes
        return true;
      })
    : Promise.resolve(false);
  decided.then(function (stored) {
    whenDomReady(settle);
    if (stored) send('page_view');
  });
})(window, document);
