/*! affiliated tracker: keeps an affiliate's referral code in a first-party cookie and reports
 * page views and leads to the affiliated daemon that serves this file. No dependencies, no
 * third-party requests, never an API key. Usage and attributes: docs/tracking.md. */
(function (window, document) {
  'use strict';
  if (window.affiliated && window.affiliated.version) return; // the tag is on the page twice

  var COOKIE = 'affiliated_ref';
  var CLICK_COOKIE = 'affiliated_click';
  var SESSION_KEY = 'affiliated_session';
  var CODE = /^[A-Za-z0-9]{2,32}$/;
  // A click id a referral link through the daemon added (docs/analytics.md).
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

  var referral = readCookie();
  var clickId = referral ? readClick() : null;
  var isReady = false;
  var waiting = [];
  var sessionId;
  var api = { version: 1, referral: referral, clickId: clickId, track: track, ready: ready };
  window.affiliated = api;
  if (!campaign) console.warn('affiliated: add data-campaign="PUBLIC_ID" to the tracker script tag');

  function readCookie() {
    var match = document.cookie.match(/(?:^|;\s*)affiliated_ref=([A-Za-z0-9]+)/);
    return match && CODE.test(match[1]) ? match[1] : null;
  }

  function readClick() {
    var match = document.cookie.match(/(?:^|;\s*)affiliated_click=([0-9A-Z]+)/);
    return match && CLICK.test(match[1]) ? match[1] : null;
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

  // The first of the configured parameters that the page's URL carries with a code in it.
  function landedCode() {
    var query = new URLSearchParams(window.location.search);
    for (var i = 0; i < params.length; i++) {
      var code = query.get(params[i].trim());
      if (code && CODE.test(code)) return code;
    }
    return null;
  }

  // The click id the link added, kept with its code; a code that came without one drops the old click.
  function landedClick() {
    var id = new URLSearchParams(window.location.search).get('click_id');
    return id && CLICK.test(id) ? id : null;
  }

  function session() {
    if (sessionId) return sessionId;
    try {
      sessionId = window.sessionStorage.getItem(SESSION_KEY);
    } catch {
      // storage disabled: one id for this page
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
        // kept in memory only
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

  // One event through the key-less SDK endpoint; resolves true when the daemon stored it.
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

  // Stripe Payment Links, Buy Buttons and Pricing Tables carry the code to the payment; a value set stays.
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

  // Forms added after the page loaded get the code when they are submitted.
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
        clickId = landedClick();
        writeCookie(CLICK_COOKIE, clickId || '', clickId ? days : 0);
        return true;
      })
    : Promise.resolve(false);
  decided.then(function (stored) {
    whenDomReady(settle);
    if (stored) send('page_view');
  });
})(window, document);
