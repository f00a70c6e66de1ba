// The collector's status page as a person sees it: Debian's Chromium, driven
// by puppeteer-core (scripts/npm/package.json), loads the page from a running
// collector, waits for its first refresh, and reports what is on screen as
// one JSON line for test/integration/status_page_test.cc to check: the
// matrix's rows, columns and cells (values, loss and declared marks, each
// cell's words), the legend, the carbon rows with their sparklines' text, the
// keyboard path (Tab order, the pause button by keyboard), and how long the
// page takes to draw a 100 × 100 matrix. Saves a screenshot.
//
// Usage: node status_page_check.cjs URL SCREENSHOT.png PROFILE_DIR [USER:PASSWORD]
// NODE_PATH names the node_modules holding puppeteer-core.
"use strict";
const puppeteer = require("puppeteer-core");

async function main() {
  const [url, screenshot, profile, credentials] = process.argv.slice(2);
  const browser = await puppeteer.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    userDataDir: profile,
    // Root in CI: Chromium's sandbox needs a user namespace it may not get.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--ignore-certificate-errors"],
  });
  try {
    const page = await browser.newPage();
    if (credentials) {
      const [username, password] = credentials.split(":");
      await page.authenticate({username, password});
    }
    const errors = [];
    page.on("pageerror", error => errors.push(String(error)));
    page.on("console", message => { if (message.type() === "error") errors.push(message.text()); });
    await page.setViewport({width: 1500, height: 1000});
    await page.goto(url, {waitUntil: "load"});
    await page.waitForSelector('body[data-loaded="true"]', {timeout: 30000});

    const facts = await page.evaluate(() => {
      const matrix = document.getElementById("matrix");
      const cells = [...matrix.querySelectorAll("tbody td")];
      return {
        title: document.title,
        columns: [...matrix.querySelectorAll("thead th")].map(th => th.textContent),
        rows: [...matrix.querySelectorAll("tbody th")].map(th => th.textContent),
        cells: cells.map(td => ({
          text: td.textContent, title: td.getAttribute("title"), classes: td.className,
          background: getComputedStyle(td).backgroundColor,
          target: td.dataset.target || ""})),
        summary: document.getElementById("rtt-summary").textContent,
        matrixHidden: document.getElementById("matrix-box").hidden,
        legend: [...document.querySelectorAll("#rtt-legend li")].map(li => li.textContent),
        legendSwatchesHidden: [...document.querySelectorAll("#rtt-legend .swatch")]
          .every(s => s.getAttribute("aria-hidden") === "true"),
        carbon: [...document.querySelectorAll("#carbon tbody tr")].map(tr => ({
          location: tr.dataset.location || "",
          cells: [...tr.children].map(c => c.textContent.trim()),
          sparkline: tr.querySelector("svg") ? tr.querySelector("svg").getAttribute("aria-label") : null,
          sparklineRole: tr.querySelector("svg") ? tr.querySelector("svg").getAttribute("role") : null})),
        links: [...document.querySelectorAll("footer a")].map(a => a.getAttribute("href")),
        lang: document.documentElement.lang,
        captions: [...document.querySelectorAll("caption")].map(c => c.textContent.trim().length),
        headerScopes: [...document.querySelectorAll("th")].every(th => th.getAttribute("scope") !== null),
      };
    });

    await page.screenshot({path: screenshot, fullPage: true});

    // The keyboard path: Tab reaches the pause button, then the scrollable
    // matrix; Enter on the button pauses the refresh.
    const focused = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press("Tab");
      focused.push(await page.evaluate(() => {
        const e = document.activeElement;
        const style = getComputedStyle(e);
        return {tag: e.tagName.toLowerCase(), id: e.id, role: e.getAttribute("role") || "",
                outline: style.outlineStyle !== "none" && style.outlineWidth !== "0px"};
      }));
    }
    await page.focus("#pause");
    await page.keyboard.press("Enter");
    facts.pausedByKeyboard = await page.evaluate(
      () => document.getElementById("pause").getAttribute("aria-pressed") === "true");
    facts.focused = focused;

    // 100 × 100: the same render the refresh runs, on a made-up snapshot.
    facts.render100ms = await page.evaluate(() => {
      const rtt = [];
      for (let s = 0; s < 100; s++) {
        for (let t = 0; t < 100; t++) {
          rtt.push({source: "node-" + s, target: "node-" + t, method: t % 7 ? "measured" : "declared",
                    rtt_ms: (s * 37 + t * 11) % 250 + 0.5, loss_ratio: t % 7 ? (t % 13 ? 0 : 0.25) : null});
        }
      }
      const status = {title: "carbonroute-collector", node: "node-0", generated_at: "2026-01-01T00:00:00Z",
                      refresh_seconds: 10, links: [], rtt, carbon: []};
      const start = performance.now();
      render(status);
      document.body.offsetHeight;  // layout included
      return {milliseconds: performance.now() - start,
              cells: document.querySelectorAll("#matrix tbody td").length};
    });
    facts.errors = errors;
    process.stdout.write(JSON.stringify(facts) + "\n");
  } finally {
    await browser.close();
  }
}

main().catch(error => {
  process.stderr.write(String(error && error.stack || error) + "\n");
  process.exit(1);
});
