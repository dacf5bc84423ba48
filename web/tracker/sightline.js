// The Sightline browser tracker, served at /sdk.js (docs/tracker.md). Plain ES2017, no dependencies; build/tracker.mjs
// minifies it and the server embeds the result. Every entry point is wrapped: nothing here may throw into the page.
(function (w, d) {
  try {
    var script = d.currentScript || d.querySelector('script[data-site]');
    var early = w.sightline;
    if (!script || (early && early.v)) return;
    var attr = function (name) {
      return script.getAttribute('data-' + name);
    };
    var on = function (name) {
      return attr(name) === 'true';
    };
    var nav = navigator;
    var loc = location;
    var site = attr('site');
    var endpoint = (attr('endpoint') || new URL(script.src, loc.href).origin).replace(/\/+$/, '') + '/events';
    var typePattern = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;
    var hashRoutes = on('hash');
    var downloads = attr('auto-downloads');
    var extensions = (downloads === 'true' ? 'pdf,zip,gz,tgz,rar,7z,dmg,exe,msi,pkg,deb,rpm,apk,csv,xlsx,xls,docx,doc,pptx,ppt,txt,mp3,mp4,mov,avi,wav,iso' : downloads || '').split(',');
    var optedOut = on('respect-dnt') && (nav.doNotTrack == '1' || w.doNotTrack == '1' || nav.globalPrivacyControl === true);
    // consent: undefined until consent() is called; events wait for it when data-require-consent="true".
    var consent;
    var waiting = [];
    var userId;
    var anonId;
    var lastPage;
    var referrer = d.referrer;

    var safe = function (fn) {
      return function () {
        try {
          return fn.apply(this, arguments);
        } catch (error) {
          // Never into the host page.
        }
      };
    };

    var uuid = function () {
      var bytes = crypto.getRandomValues(new Uint8Array(16));
      bytes[6] = (bytes[6] & 15) | 64;
      bytes[8] = (bytes[8] & 63) | 128;
      return [].map.call(bytes, function (byte, index) {
        // A dash before bytes 4, 6, 8 and 10 (the bits of 0x550).
        return ((0x550 >> index) & 1 ? '-' : '') + (byte + 256).toString(16).slice(1);
      }).join('');
    };

    // A persistent id only for sites that turned cookieless off; cookieless sites get theirs from the server.
    if (attr('cookieless') === 'false') {
      try {
        anonId = localStorage.sl_id || (localStorage.sl_id = uuid());
      } catch (error) {
        anonId = uuid();
      }
    }

    var clip = function (text, max) {
      return text && text.length > max ? text.slice(0, max) : text;
    };

    var deliver = function (body, attempt) {
      fetch(endpoint, {
        method: 'POST',
        keepalive: true,
        headers: { authorization: 'Bearer ' + site, 'content-type': 'text/plain' },
        body: body,
      }).then(
        function (answer) {
          if (answer.status == 429 || answer.status > 499) throw 0;
        },
      ).catch(function () {
        // The same body, so the same event id: the collector's dedup makes a repeat harmless.
        if (attempt < 3) setTimeout(deliver, 1000 << attempt, body, attempt + 1);
      });
    };

    var send = function (event) {
      if (consent === undefined && on('require-consent')) return waiting.push(event);
      if (consent && !consent.analytics) return;
      if (consent) event.consent = consent;
      deliver(JSON.stringify(event), 0);
    };

    var track = function (type, props, options, page) {
      var url = clip(page || loc.href, 2048);
      if (optedOut || !site || !typePattern.test(type) || !/^https?:/.test(url)) return;
      var event = {
        id: uuid(),
        site_id: site,
        ts: new Date().toISOString(),
        type: type,
        url: url,
        referrer: clip(referrer, 2048) || null,
        context: { locale: clip(nav.language, 64), title: clip(d.title, 1024), screen: { w: screen.width, h: screen.height } },
      };
      if (anonId) event.anon_id = anonId;
      if (userId) event.user_id = userId;
      if (props && typeof props == 'object' && !Array.isArray(props)) event.props = props;
      if (options && options.revenue) event.revenue = options.revenue;
      send(event);
    };

    // Engagement (docs/tracker.md): the time a page was visible with input (scroll, key, pointer) in the last 15 s, and
    // how far down it was seen, sent once per page as `engagement` when it is hidden or left for another SPA page
    // (`leave` is true; an input or visibilitychange passes its DOM event, which is not > 0).
    var engagedMs, activeUntil, since, depth, engagedPage;
    var active = function (leave) {
      var now = Date.now();
      engagedMs += Math.min(now, activeUntil) - since;
      since = now;
      // A hidden page holds no attention: the time after it was hidden never counts.
      activeUntil = now + !d.hidden * 15000;
      if (leave > 0 || d.hidden) {
        if (engagedPage) track('engagement', { scroll_depth: depth, engaged_ms: engagedMs }, 0, engagedPage);
        engagedPage = engagedMs = depth = 0;
      }
      depth = Math.max(depth, Math.min(100, ((scrollY + innerHeight) * 100) / d.body.scrollHeight) | 0);
    };

    var pageview = function () {
      var page = hashRoutes ? loc.href : loc.href.split('#')[0];
      if (page == lastPage) return;
      if (lastPage) referrer = lastPage;
      lastPage = page;
      active(true);
      engagedPage = page;
      track('pageview');
    };

    var api = (w.sightline = {
      v: 1,
      track: safe(track),
      identify: safe(function (id) {
        userId = id ? clip(String(id), 128) : undefined;
      }),
      consent: safe(function (choice) {
        consent = { analytics: !!(choice && choice.analytics), marketing: !!(choice && choice.marketing) };
        var queued = waiting;
        waiting = [];
        queued.forEach(send);
      }),
      pageview: safe(pageview),
    });


    var listen = function (target, name, handler, capture) {
      target.addEventListener(name, safe(handler), capture);
    };

    var tagOf = function (element) {
      var match = / sightline-event-(\S+)/.exec(' ' + element.getAttribute('class'));
      return element.getAttribute('data-sightline-event') || (match && match[1]);
    };

    var propsOf = function (element) {
      var props = {};
      [].forEach.call(element.attributes, function (attribute) {
        if (!attribute.name.indexOf('data-sightline-prop-')) props[attribute.name.slice(20)] = attribute.value;
      });
      return props;
    };

    var clicked = function (click) {
      if (click.button > 1) return;
      for (var element = click.target; element && element.getAttribute; element = element.parentNode) {
        var tag = element.tagName != 'FORM' && tagOf(element);
        if (tag) track(tag, propsOf(element));
        if (element.tagName == 'A' && element.href) {
          var link = new URL(element.href, loc.href);
          if (!/^https?:/.test(link.protocol)) return;
          var file = link.pathname.split('.').pop().toLowerCase();
          if (downloads && link.pathname.indexOf('.') > 0 && extensions.indexOf(file) >= 0) track('file_download', { url: clip(link.href, 2048) });
          else if (on('auto-outbound') && link.host != loc.host) track('outbound_click', { url: clip(link.href, 2048) });
          return;
        }
      }
    };
    listen(d, 'scroll', active, true);
    listen(d, 'keydown', active, true);
    listen(d, 'visibilitychange', active);
    // A middle click opens a link too, and fires auxclick rather than click.
    listen(d, 'click', clicked, true);
    listen(d, 'auxclick', clicked, true);
    // Listening to submit, not click: the browser fires it only for a submission that passed validation, and it is
    // never cancelled or delayed here.
    listen(
      d,
      'submit',
      function (submit) {
        var form = submit.target;
        var tag = tagOf(form);
        if (tag) track(tag, propsOf(form));
        // Attributes, not properties: an input named "id" or "action" shadows form.id and form.action.
        if (on('auto-forms')) track('form_submit', { form: form.getAttribute('id') || form.getAttribute('name') || new URL(form.getAttribute('action') || '', loc.href).pathname });
      },
      true,
    );

    if (attr('auto-pageviews') !== 'false') {
      ['pushState', 'replaceState'].forEach(function (name) {
        var original = history[name];
        history[name] = function () {
          var result = original.apply(this, arguments);
          api.pageview();
          return result;
        };
      });
      listen(w, 'popstate', pageview);
      listen(w, 'hashchange', pageview);
      pageview();
    }
    // Calls made before the script loaded: window.sightline = window.sightline || { q: [] }; sightline.q.push(['track', ...]).
    ((early && early.q) || []).forEach(function (call) {
      api[call[0]] && api[call[0]].apply(api, [].slice.call(call, 1));
    });
  } catch (error) {
    // A browser without fetch, URL or crypto: the page goes on untracked.
  }
})(window, document);
