/**
 * Static HTML (and other) bodies served by the fixture site.
 * Everything here is a pure string/bytes builder; routing lives in server.ts.
 */

/** Escape text for safe inclusion in HTML text or attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Minimal complete HTML document. `title` and `body` are inserted verbatim. */
export function page(title: string, body: string, head = ""): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
${head}</head>
<body>
${body}
</body>
</html>
`;
}

/** 1x1 opaque PNG (valid signature, IHDR/IDAT/IEND chunks and CRCs). */
export const PIXEL_PNG: Buffer = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

export const INDEX_HTML = page(
  "Fixture Site",
  `<h1>Fixture Site</h1>
<p>Pages used by the end-to-end tests.</p>
<ul>
<li><a href="/article">Article</a></li>
<li><a href="/page2">Page Two</a></li>
<li><a href="/img/pixel.png">Pixel image</a></li>
<li><a href="/js-content">JavaScript-rendered content</a></li>
<li><a href="/slow?ms=3000">Slow page</a></li>
<li><a href="/form">Form</a></li>
<li><a href="/welcome?username=guest">Welcome</a></li>
<li><a href="/links">Links</a></li>
<li><a href="/redirect/1">Redirect chain</a></li>
<li><a href="/redirect-to?url=%2Farticle">Redirect to URL</a></li>
<li><a href="/status/404">Status 404</a></li>
<li><a href="/status/500">Status 500</a></li>
<li><a href="/latin1">Latin-1 page</a></li>
<li><a href="/large">Large page</a></li>
<li><a href="/headers">Request headers echo</a></li>
<li><a href="/auth">Basic auth</a></li>
<li><a href="/cookies">Cookies echo</a></li>
<li><a href="/set-cookie">Set cookie</a></li>
<li><a href="/blocked-resources">Sub-resources</a></li>
<li><a href="/elements">Elements (products)</a></li>
<li><a href="/sitemap.xml">sitemap.xml</a></li>
<li><a href="/robots.txt">robots.txt</a></li>
</ul>`,
);

export const ARTICLE_HTML = page(
  "Fixture Article",
  `<nav id="site-nav">
<a href="/">Home</a> | <a href="/article">Article</a> | <a href="/page2">Page Two</a> | <a href="/links">Links</a>
</nav>
<main>
<article>
<h1>The Fixture Article</h1>
<p class="lead">This article exists so that scraping tests have predictable content to extract.</p>

<h2 id="introduction">Introduction</h2>
<p>This paragraph has a relative link to the <a href="/page2">next page</a> and an image <img src="/img/pixel.png" alt="A pixel"> inline.</p>

<h3 id="lists">Lists</h3>
<ul>
<li>First item</li>
<li>Second item
<ol>
<li>Nested one</li>
<li>Nested two</li>
</ol>
</li>
<li>Third item</li>
</ul>

<h2 id="data">Data</h2>
<h3 id="people">People</h3>
<table>
<thead>
<tr><th>Name</th><th>Age</th></tr>
</thead>
<tbody>
<tr><td>Alice</td><td>30</td></tr>
<tr><td>Bob</td><td>25</td></tr>
</tbody>
</table>

<h3 id="code">Code</h3>
<pre><code class="language-js">const answer = 42;</code></pre>

<script>var secretScript = "do-not-leak";</script>
<style>.x{color:red}</style>
<div style="display:none">hidden-text-should-not-appear</div>

<h2 id="conclusion">Conclusion</h2>
<p>That is the end of the fixture article.</p>
</article>
</main>
<footer id="site-footer">
<p>Fixture footer &copy; Fixture Site. <a href="/">Home</a></p>
</footer>`,
);

export const PAGE2_HTML = page(
  "Page Two",
  `<h1>Page Two</h1>
<p>This is the second page.</p>
<h2 id="section">Section</h2>
<p>A section on page two. <a href="/article">Back to the article</a></p>`,
);

/** Body is empty at load; the head script sets the title at once and inserts #late after 300 ms. */
export const JS_CONTENT_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>JS Loading</title>
<script>
document.title = "JS Page";
setTimeout(function () {
  var div = document.createElement("div");
  div.id = "late";
  div.textContent = "Rendered by JavaScript";
  document.body.appendChild(div);
}, 300);
</script>
</head>
<body></body></html>`;

export function slowHtml(ms: number): string {
  return page("Slow Page", `<h1>Slow page done</h1>\n<p>Responded after ${ms} ms.</p>`);
}

export const FORM_HTML = page(
  "Login Form",
  `<h1>Login</h1>
<form id="login" action="/welcome" method="get">
<p><label for="username">Username</label> <input id="username" name="username" type="text"></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password"></p>
<p><label for="color">Favourite colour</label>
<select id="color" name="color">
<option value="red">red</option>
<option value="green">green</option>
<option value="blue">blue</option>
</select></p>
<p><label><input id="remember" name="remember" type="checkbox" value="yes"> Remember me</label></p>
<p>
<button id="submit" type="submit">Sign in</button>
<button id="cancel" type="button">Cancel</button>
<button id="disabled" type="button" disabled>Disabled</button>
<button id="ghost" type="button" style="display:none">Ghost</button>
</p>
</form>`,
);

export function welcomeHtml(username: string): string {
  return page("Welcome", `<h1>Welcome, ${escapeHtml(username)}</h1>`);
}

export const LINKS_HTML = page(
  "Links",
  `<h1>Links</h1>
<h2>Internal</h2>
<ul id="internal">
<li><a href="/article">Article</a></li>
<li><a href="/page2">Page Two</a></li>
<li><a href="/page2#section">Page Two, section</a></li>
<li><a href="/article">Article again (duplicate)</a></li>
</ul>
<h2>External</h2>
<ul id="external">
<li><a href="https://example.com/">Example.com</a></li>
<li><a href="https://example.org/about">Example.org about</a></li>
</ul>
<div style="display:none"><a href="/hidden-link">Hidden link</a></div>
<h2>Other schemes</h2>
<ul id="other">
<li><a href="mailto:someone@example.com">Email someone</a></li>
<li><a href="javascript:void(0)">Do nothing</a></li>
</ul>`,
);

export function statusHtml(code: number): string {
  const title = code === 404 ? "Not Found Page" : code === 500 ? "Server Error Page" : `Status ${code} Page`;
  return page(title, `<h1>${title}</h1>\n<p>HTTP status ${code}.</p>`);
}

export const NOT_FOUND_HTML = statusHtml(404);

/**
 * Latin-1 page. Deliberately no <meta charset>: the charset comes only from the
 * Content-Type header. Must be encoded with Buffer.from(..., "latin1").
 */
export const LATIN1_HTML = `<!DOCTYPE html>
<html lang="fr">
<head>
<title>Latin-1 Page</title>
</head>
<body>
<h1>Café crème brûlée</h1>
<p>Café crème brûlée: à la carte, naïve, façade, über.</p>
</body>
</html>
`;

const LOREM =
  "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. " +
  "Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. " +
  "Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur. " +
  "Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id est laborum.";

/** ~2 MB: 5000 paragraphs of ~400 bytes, then <p id="end">. */
export function buildLargeHtml(paragraphs = 5000): string {
  const parts: string[] = [];
  for (let i = 1; i <= paragraphs; i++) {
    parts.push(`<p>Paragraph ${i} ${LOREM}</p>`);
  }
  parts.push('<p id="end">End of large page</p>');
  return page("Large Page", `<h1>Large Page</h1>\n${parts.join("\n")}`);
}

/**
 * A long reference manual, as documentation sites serve them: a sidebar, then many sections, each with
 * prose holding links and inline code, a code listing with a blank line inside, an options table and a
 * list. Long enough (about 40,000 tokens of markdown at the default) to need several budgeted parts.
 */
export function buildManualHtml(sections = 80): string {
  const nav = Array.from(
    { length: sections },
    (_, i) => `<li><a href="#s${i + 1}">Section ${i + 1}</a></li>`,
  ).join("");
  const body = Array.from({ length: sections }, (_, i) => {
    const n = i + 1;
    return `<section id="s${n}">
<h2>${n}. The <code>option${n}</code> setting</h2>
<p>The <a href="/manual/guide/${n}#details">configuration guide</a> explains <code>option${n}</code> in depth. Each option takes a value and a scope; the scope decides which requests it applies to, and the value is checked when the service starts. A value that fails the check stops the start with a message naming the option, its value and what it accepts.</p>
<p>Most deployments never change it. Those that do usually raise it for long documents, lower it for small replicas, or scope it to one route; see <a href="/manual/faq#q${n}">the FAQ entry</a> for the trade-offs measured on real traffic.</p>
<pre><code class="language-ts">export const option${n} = {
  name: "opt-${n}",

  value: ${n * 7},
  scope: "request",
};</code></pre>
<table><thead><tr><th>Option</th><th>Default</th><th>Meaning</th></tr></thead>
<tbody><tr><td>opt-${n}</td><td>${n}</td><td>the knob number ${n}, see <a href="/manual/details/${n}">details</a></td></tr>
<tr><td>other-${n}</td><td>none</td><td>left unset unless <code>opt-${n}</code> is above ${n * 2}</td></tr></tbody></table>
<ul><li>first point about setting ${n}</li><li>second point, with a <a href="/manual/note/${n}">note</a></li></ul>
</section>`;
  }).join("\n");
  return page("Reference Manual", `<nav><ul>${nav}</ul></nav><main><h1>Reference Manual</h1>${body}</main>`);
}

export function headersHtml(headers: Record<string, unknown>): string {
  return page(
    "Request Headers",
    `<h1>Request Headers</h1>\n<pre id="echo">${escapeHtml(JSON.stringify(headers, null, 2))}</pre>`,
  );
}

export const AUTH_REQUIRED_HTML = page("Authentication Required", "<h1>Authentication Required</h1>");

export const AUTH_OK_HTML = page("Authenticated", "<h1>Authenticated as alice</h1>");

export function cookiesHtml(cookie: string): string {
  return page("Cookies", `<h1>Cookies</h1>\n<pre id="cookies">${escapeHtml(cookie)}</pre>`);
}

export const SET_COOKIE_HTML = page("Set Cookie", '<h1>Set Cookie</h1>\n<p id="result">cookie set</p>');

export const BLOCKED_RESOURCES_HTML = page(
  "Blocked Resources",
  `<h1>Blocked Resources</h1>
<p>This page loads an image, a stylesheet and a script.</p>
<img src="/img/pixel.png" alt="A pixel">
<script src="/app.js"></script>`,
  '<link rel="stylesheet" href="/style.css">\n',
);

export const STYLE_CSS = `body { font-family: sans-serif; }
h1 { color: #333; }
`;

export const APP_JS = `(function () {
  var p = document.createElement("p");
  p.id = "js-ran";
  p.textContent = "js ran";
  document.body.appendChild(p);
})();
`;

export const ELEMENTS_HTML = page(
  "Products",
  `<h1>Products</h1>
<div id="products">
${[1, 2, 3]
  .map(
    (n) =>
      `<div class="product" data-id="${n}"><h2 class="name">Widget ${n}</h2><span class="price">$${n}.99</span></div>`,
  )
  .join("\n")}
</div>`,
);

export function sitemapXml(origin: string): string {
  const paths = ["/article", "/page2", "/links", "/form"];
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${paths.map((p) => `  <url><loc>${escapeHtml(origin + p)}</loc></url>`).join("\n")}
</urlset>
`;
}

export function robotsTxt(origin: string): string {
  return `User-agent: *
Disallow: /private
Disallow: /crawl/blocked

Sitemap: ${origin}/sitemap.xml
`;
}

/**
 * A small app for browser-control tests: each control shows what it did in text on the page.
 * #load fetches /api/slow-json?ms=300 and then shows the result in #loaded; #load-slow takes 3 s.
 */
export const APP_PAGE_HTML = page(
  "App",
  `<h1>App</h1>
<p><button id="counter" type="button">Count</button> <span id="count">Clicked 0 times</span></p>
<p><label for="name">Name</label> <input id="name" name="name" type="text"> <button id="greet" type="button">Greet</button> <span id="greeting"></span></p>
<p><label for="fruit">Fruit</label>
<select id="fruit" name="fruit">
<option value="apple">Apple</option>
<option value="pear">Pear</option>
<option value="plum">Plum</option>
</select>
<span id="fruit-shown">Chosen: apple</span></p>
<p><label><input id="agree" name="agree" type="checkbox"> I agree</label> <span id="agree-shown">Agreed: no</span></p>
<p><button id="hover-target" type="button">Hover for a tip</button> <span id="tip"></span></p>
<p><button id="load" type="button">Load data</button> <span id="loaded"></span></p>
<p><button id="load-slow" type="button">Load data slowly</button> <span id="loaded-slow"></span></p>
<p><button id="off" type="button" disabled>Unavailable</button></p>
<p><a id="to-page2" href="/page2">Go to page two</a></p>
<div id="scroller" style="height:120px;width:300px;overflow:auto;border:1px solid #999">
<div style="height:1200px;padding:4px"><button id="inner" type="button">Inside the box</button><p>Scroll me.</p></div>
</div>
<div id="tall" style="height:4000px"><p>A long page.</p></div>
<p id="bottom">Bottom of the page</p>
<script>
(function () {
  var count = 0;
  var byId = function (id) { return document.getElementById(id); };
  byId("counter").addEventListener("click", function () {
    count += 1;
    byId("count").textContent = "Clicked " + count + " times";
  });
  byId("greet").addEventListener("click", function () {
    byId("greeting").textContent = "Hello, " + byId("name").value;
  });
  byId("fruit").addEventListener("change", function (e) {
    byId("fruit-shown").textContent = "Chosen: " + e.target.value;
  });
  byId("agree").addEventListener("change", function (e) {
    byId("agree-shown").textContent = "Agreed: " + (e.target.checked ? "yes" : "no");
  });
  byId("hover-target").addEventListener("mouseenter", function () {
    byId("tip").textContent = "Tip: you hovered";
  });
  byId("load").addEventListener("click", function () {
    fetch("/api/slow-json?ms=300")
      .then(function (r) { return r.json(); })
      .then(function (d) { byId("loaded").textContent = d.message; });
  });
  byId("load-slow").addEventListener("click", function () {
    fetch("/api/slow-json?ms=3000")
      .then(function (r) { return r.json(); })
      .then(function (d) { byId("loaded-slow").textContent = d.message; });
  });
})();
</script>`,
);

export function slowJson(ms: number): string {
  return JSON.stringify({ message: `Loaded after ${ms} ms`, ms });
}
