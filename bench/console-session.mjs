#!/usr/bin/env node
// Console cold load of one long session: /ui/sessions/<id> holding BENCH_MESSAGES (2,000) messages, users'
// prompts and assistants' replies with text and now and then a finished tool call, in headless Chromium
// with an empty cache per run, from navigation start to the first message of the conversation on screen.
//   node bench/console-session.mjs [runs=10]          (SQLite in a temp data dir; build first: npm run build)
// The session is created through the API (POST /session); its messages and parts are written straight
// into the message and part tables (as bench/lib/documents.mjs seeds documents: Keel started once for the
// schema, stopped, seeded, started again), since producing 2,000 replies through a model is not what this measures.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { machineLine, percentile } from './lib/figures.mjs';
import { startKeel } from './lib/keel-server.mjs';
import { wordSource } from './lib/words.mjs';

const require = createRequire(import.meta.url);
const RUNS = Number(process.argv[2] ?? 10);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 2000);
const CHROMIUM = process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium';
const { word } = wordSource(11);
const sentence = (n) => Array.from({ length: n }, word).join(' ');

// Ascending ids in the server's shape (prefix, 12 hex of time, 14 characters), so id order is creation order.
const idOf = (prefix, at, n) => `${prefix}_${at.toString(16).padStart(12, '0')}${String(n).padStart(14, '0')}`;

function seedMessages(dataDir, session, count) {
  const Database = require('better-sqlite3');
  const db = new Database(join(dataDir, 'keel.sqlite'));
  const insertMessage = db.prepare(
    'INSERT INTO message (id, session_id, role, data, time_created) VALUES (?, ?, ?, ?, ?)',
  );
  const insertPart = db.prepare('INSERT INTO part (id, session_id, message_id, data) VALUES (?, ?, ?, ?)');
  const start = Date.UTC(2026, 0, 1);
  let parts = 0;
  db.transaction(() => {
    let parentID = '';
    for (let i = 0; i < count; i++) {
      const at = start + i * 1000;
      const id = idOf('msg', at, i);
      const base = { id, sessionID: session.id, time: { created: at } };
      const info =
        i % 2 === 0
          ? { ...base, role: 'user', agent: 'build', model: { providerID: 'bench', modelID: 'bench-model' } }
          : {
              ...base,
              role: 'assistant',
              time: { created: at, completed: at + 900 },
              parentID,
              modelID: 'bench-model',
              providerID: 'bench',
              mode: 'build',
              agent: 'build',
              path: { cwd: session.directory, root: session.directory },
              cost: 0.0012,
              tokens: { input: 900, output: 300, reasoning: 0, cache: { read: 0, write: 0 } },
              finish: 'stop',
            };
      if (info.role === 'user') parentID = id;
      insertMessage.run(id, session.id, info.role, JSON.stringify(info), at);
      const part = (n, fields) => {
        const partID = idOf('prt', at, i * 10 + n);
        insertPart.run(partID, session.id, id, JSON.stringify({ id: partID, sessionID: session.id, messageID: id, ...fields }));
        parts++;
      };
      if (info.role === 'user') {
        part(0, { type: 'text', text: `Message ${i}: ${sentence(25)}?` });
        continue;
      }
      part(0, { type: 'step-start' });
      part(1, { type: 'text', text: `Reply ${i}. ${sentence(60)}.\n\n- ${sentence(8)}\n- ${sentence(8)}` });
      // Every fifth reply runs a tool: a finished bash call with some output.
      if (i % 10 === 1)
        part(2, {
          type: 'tool',
          callID: `call_${i}`,
          tool: 'bash',
          state: {
            status: 'completed',
            input: { command: `grep -rn ${word()} src`, description: 'Search the sources' },
            output: Array.from({ length: 12 }, (_, l) => `src/file${l}.ts:${l + 1}: ${sentence(6)}`).join('\n'),
            title: 'Search the sources',
            metadata: {},
            time: { start: at + 100, end: at + 300 },
          },
        });
      part(3, {
        type: 'step-finish',
        reason: 'stop',
        cost: 0.0012,
        tokens: { input: 900, output: 300, reasoning: 0, cache: { read: 0, write: 0 } },
      });
    }
  })();
  db.close();
  return parts;
}

// Runs in the page before any of its scripts: notes when the conversation first shows a message.
function watchFirstMessage() {
  const found = () => {
    const first = document.querySelector('[role="log"][aria-label="Conversation"] [data-index]');
    return first !== null && /(Message|Reply) \d+/.test(first.textContent ?? '');
  };
  new MutationObserver((_, observer) => {
    if (window.__firstMessageAt === undefined && found()) {
      window.__firstMessageAt = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });
}

const dataDir = mkdtempSync(join(tmpdir(), 'keel-bench-session-'));
const project = mkdtempSync(join(tmpdir(), 'keel-bench-project-'));
const serverEnv = { allowedDirectories: project, env: { KEEL_DATA_DIR: dataDir }, logLevel: 'error' };
let keel = await startKeel(serverEnv);
const created = await fetch(`${keel.url}/session?directory=${encodeURIComponent(project)}`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ title: 'A long conversation' }),
});
if (!created.ok) throw new Error(`POST /session answered ${created.status}: ${await created.text()}`);
const session = await created.json();
await keel.stop();
const seedStarted = performance.now();
const parts = seedMessages(dataDir, session, MESSAGES);
const seedMs = performance.now() - seedStarted;
keel = await startKeel(serverEnv);

const messagesUrl = `${keel.url}/session/${session.id}/message?directory=${encodeURIComponent(project)}`;
const wholeText = await (await fetch(messagesUrl)).text();
const pageText = await (await fetch(`${messagesUrl}&limit=100`)).text();
const listed = JSON.parse(wholeText);
if (listed.length !== MESSAGES) throw new Error(`expected ${MESSAGES} messages, the API lists ${listed.length}`);

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const times = [];
const stages = [];
const target = `${keel.url}/ui/sessions/${session.id}?directory=${encodeURIComponent(project)}`;
try {
  for (let run = 0; run < RUNS + 1; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(watchFirstMessage);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.goto(target);
    await page
      .waitForFunction(() => window.__firstMessageAt !== undefined, null, { timeout: 20_000 })
      .catch(async (error) => {
        await page.screenshot({ path: join(tmpdir(), 'console-session-failed.png') });
        throw error;
      });
    // The first run warms the server (its gzip cache, the first reads); it is not counted.
    if (run > 0) {
      times.push(await page.evaluate(() => window.__firstMessageAt));
      // Where the time went: the messages' request (start, answer) and the last script fetched.
      stages.push(
        await page.evaluate(() => {
          const entries = performance.getEntriesByType('resource');
          const messages = entries.find((e) => /\/session\/[^/]+\/message/.test(e.name));
          const scripts = entries.filter((e) => e.initiatorType === 'script' || /\.js$/.test(e.name));
          return {
            scripts: Math.max(0, ...scripts.map((e) => e.responseEnd)),
            messagesAsked: messages?.startTime ?? NaN,
            messagesAnswered: messages?.responseEnd ?? NaN,
          };
        }),
      );
    }
    await context.close();
  }
} finally {
  await browser.close();
  await keel.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
}

const sorted = [...times].sort((a, b) => a - b);
console.log(`console-session — ${new Date().toISOString()} — node bench/console-session.mjs ${RUNS}`);
console.log(machineLine());
console.log(
  `session of ${MESSAGES} messages, ${parts} parts (SQLite), seeded in ${(seedMs / 1000).toFixed(1)} s; ` +
    `GET …/message is ${(wholeText.length / 1024).toFixed(0)} KB whole, ${(pageText.length / 1024).toFixed(0)} KB with limit=100`,
);
console.log(
  `cold load of /ui/sessions/<id> to the first message on screen: median ${percentile(sorted, 50).toFixed(0)} ms, ` +
    `p95 ${percentile(sorted, 95).toFixed(0)} ms, min ${sorted[0].toFixed(0)} ms (n=${sorted.length}; target < 800 ms)`,
);
const median = (key) =>
  percentile(
    stages.map((s) => s[key]).sort((a, b) => a - b),
    50,
  ).toFixed(0);
console.log(
  `  of which (medians): scripts fetched by ${median('scripts')} ms, messages asked at ${median('messagesAsked')} ms and answered at ${median('messagesAnswered')} ms`,
);
