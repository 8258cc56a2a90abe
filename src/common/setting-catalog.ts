/**
 * Every setting Keel reads, in one list: `keel --help` prints it and docs/configuration.md is written
 * from it (`npm run docs`; a test fails when the page, or the variables the code reads, drift from it).
 * Parsing and validation stay with each group's loader (loadSettings and the feature settings files).
 */
interface SettingSpec {
  /** Environment variable. */
  env: string;
  /** Other names read for the same setting (the reference's, middleware-manager v3's). */
  aliases?: string[];
  /** Command-line flag of `keel serve`. */
  flag?: string;
  /** The default, as an operator reads it. */
  default: string;
  description: string;
}

interface SettingGroup {
  title: string;
  settings: SettingSpec[];
}

export const SETTING_GROUPS: SettingGroup[] = [
  {
    title: 'Server',
    settings: [
      { env: 'KEEL_HOST', flag: '--hostname', default: '127.0.0.1', description: 'Address to bind. Anything but loopback requires KEEL_SERVER_PASSWORD and KEEL_API_KEYS, or the server refuses to start.' },
      { env: 'KEEL_PORT', aliases: ['PORT'], flag: '--port', default: '4096', description: 'Port; 0 picks a free one.' },
      { env: 'KEEL_DATA_DIR', default: '$XDG_DATA_HOME/keel or ~/.local/share/keel', description: 'Data directory: the SQLite file keel.sqlite, vector indexes, the routing manager\'s config.json.' },
      { env: 'XDG_DATA_HOME', default: '~/.local/share', description: 'Base of the default data directory.' },
      { env: 'DATABASE_URL', default: 'unset', description: 'postgres://… to use PostgreSQL instead of the embedded SQLite file; directly or through a pooler in session mode (LISTEN/NOTIFY, the migrations\' advisory lock and prepared statements keep their connection).' },
      { env: 'KEEL_DATABASE_SCHEMA', default: 'unset', description: 'PostgreSQL schema to use (search_path) instead of public.' },
      { env: 'KEEL_LOG_LEVEL', flag: '--log-level', default: 'info', description: 'trace, debug, info, warn, error, fatal or silent. JSON lines with request ids; info logs each request as it ends, debug also its arrival and headers (credentials redacted).' },
      { env: 'KEEL_HEARTBEAT_MS', default: '10000', description: 'Period of server.heartbeat frames on the event streams.' },
      { env: 'KEEL_SSE_MAX_BUFFER', default: '8388608', description: 'Bytes an event-stream client may lag behind before it is disconnected.' },
      { env: 'KEEL_SHUTDOWN_GRACE_MS', default: '10000', description: 'At shutdown, how long in-flight requests may finish before their connections are closed.' },
      { env: 'KEEL_HEADERS_TIMEOUT_MS', default: '30000', description: 'Time a client has to send a request\'s headers; a slower one is answered 408 and closed.' },
      { env: 'KEEL_REQUEST_TIMEOUT_MS', default: '120000', description: 'Time a client has to send a whole request, body included. Answers, event streams and terminal WebSockets take as long as they take.' },
      { env: 'KEEL_EVENT_RELAY', default: 'true', description: 'With PostgreSQL, relay events between replicas through LISTEN/NOTIFY; false turns it off.' },
      { env: 'KEEL_CONSOLE_DIR', default: 'the built console beside the server', description: 'Directory of the built console served at /ui/.' },
      { env: 'NODE_ENV', default: 'unset', description: 'test turns the routing manager\'s data-source watcher off by default (the test suites set it).' },
    ],
  },
  {
    title: 'Security',
    settings: [
      { env: 'KEEL_SERVER_PASSWORD', aliases: ['OPENCODE_SERVER_PASSWORD'], default: 'unset', description: 'HTTP Basic password of the session surface, the routing manager and the console (?auth_token=base64(user:pass) for EventSource and WebSocket). Unset: no credential, loopback only, with a start-up warning.' },
      { env: 'KEEL_CONSOLE_SESSION_HOURS', default: '12', description: 'How long a console sign-in (POST /keel/login, an HttpOnly SameSite=Strict cookie) lasts before the password is asked again; signing out ends it sooner.' },
      { env: 'KEEL_SERVER_USERNAME', aliases: ['OPENCODE_SERVER_USERNAME'], default: 'opencode', description: 'HTTP Basic user name.' },
      { env: 'KEEL_API_KEYS', default: 'unset', description: 'Comma-separated API keys of the memory surface (Authorization: Bearer or x-api-key); only their digests are kept. Unset: no key, loopback only, with a start-up warning.' },
      { env: 'KEEL_ALLOWED_DIRECTORIES', default: 'home and working directory', description: 'Comma-separated roots every directory and path a request names must be inside, judged by real path.' },
      { env: 'KEEL_CORS', flag: '--cors', default: 'unset', description: 'Extra trusted origins: CORS answers and state changes from their pages (loopback and Tauri origins are always trusted).' },
      { env: 'KEEL_ALLOWED_HOSTS', default: 'unset', description: 'Host names served besides loopback ones and KEEL_PUBLIC_URL\'s (DNS rebinding protection on a loopback bind; enforced on any bind when set).' },
      { env: 'KEEL_PUBLIC_URL', default: 'unset (from each request)', description: 'The address clients reach Keel at (https://keel.example.com, a path prefix allowed): base of share URLs, a served Host name and a trusted origin.' },
      { env: 'KEEL_TRUST_PROXY', default: 'unset', description: 'Express trust proxy value for a reverse proxy in front (e.g. loopback): client address, protocol and host as it reports them.' },
      { env: 'KEEL_ALLOW_PRIVATE_FETCH', default: 'false', description: 'Let URL fetches (webfetch, URL ingestion, the plugin catalogue) reach loopback and private addresses.' },
    ],
  },
  {
    title: 'Sessions and the assistant',
    settings: [
      { env: 'KEEL_SHARE', default: 'on', description: 'off refuses POST /session/{id}/share.' },
      { env: 'KEEL_SHARE_BASE_URL', default: 'unset (Keel\'s own address)', description: 'An external share host: share.url = <base>/share/<shareID>.' },
      { env: 'KEEL_PERMISSION_TIMEOUT_MS', default: 'unset (wait forever)', description: 'Answer a permission request nobody replied to after this many ms (0: at once), for headless use.' },
      { env: 'KEEL_PERMISSION_DEFAULT', default: 'reject', description: 'The answer given on timeout: once, always or reject.' },
      { env: 'KEEL_PROMPT_MAX_RETRIES', default: '5', description: 'Retries of a retryable provider error within one step.' },
      { env: 'KEEL_PROMPT_MAX_STEPS', default: '100', description: 'Model steps of one turn before the loop stops.' },
      { env: 'OPENCODE_CONFIG', default: 'unset', description: 'An extra opencode config file, merged over the global one (as the reference reads it).' },
      { env: 'OPENCODE_CONFIG_CONTENT', default: 'unset', description: 'opencode config as JSON text, merged last (the SDK\'s createOpencodeServer passes its config this way).' },
      { env: 'OPENCODE_CONFIG_DIR', default: 'unset', description: 'An extra directory of opencode config, agents and commands.' },
      { env: 'OPENCODE_PERMISSION', default: 'unset', description: 'A permission config as JSON, merged over the others.' },
      { env: 'XDG_CONFIG_HOME', default: '~/.config', description: 'Base of the global opencode config directory (<base>/opencode).' },
      { env: 'HOME', default: 'the user\'s home', description: 'Where ~ in config paths and the default allowed directory point.' },
      { env: 'PATH', default: 'the user\'s', description: 'Where terminals, the bash tool and keel doctor find programs (git, bash).' },
      { env: 'SHELL', default: '/bin/sh (terminals), bash (the bash tool)', description: 'The shell terminals start, and the bash tool uses when it is bash.' },
    ],
  },
  {
    // Read by name from the shipped provider catalogue (src/providers/catalog.json, a provider's `env`), at each
    // use; test/documentation.e2e-spec.ts fails when the catalogue names a variable this list does not.
    title: 'Model providers',
    settings: [
      { env: 'ANTHROPIC_API_KEY', default: 'unset', description: 'Anthropic API key: connects the anthropic provider of the assistant\'s models.' },
      { env: 'OPENAI_API_KEY', default: 'unset', description: 'OpenAI API key: connects the openai provider of the assistant\'s models.' },
      { env: 'GOOGLE_GENERATIVE_AI_API_KEY', aliases: ['GEMINI_API_KEY'], default: 'unset', description: 'Google (Gemini) API key: connects the google provider of the assistant\'s models.' },
      { env: 'OPENROUTER_API_KEY', default: 'unset', description: 'OpenRouter API key: connects the openrouter provider of the assistant\'s models.' },
      { env: 'GROQ_API_KEY', default: 'unset', description: 'Groq API key: connects the groq provider of the assistant\'s models.' },
      { env: 'MISTRAL_API_KEY', default: 'unset', description: 'Mistral API key: connects the mistral provider of the assistant\'s models.' },
      { env: 'DEEPSEEK_API_KEY', default: 'unset', description: 'DeepSeek API key: connects the deepseek provider of the assistant\'s models.' },
      { env: 'XAI_API_KEY', default: 'unset', description: 'xAI API key: connects the xai provider of the assistant\'s models.' },
    ],
  },
  {
    title: 'Terminals',
    settings: [
      { env: 'KEEL_PTY_REPLAY_BYTES', default: '1048576', description: 'Output kept while no client is attached, replayed to the next one (0 disables).' },
      { env: 'KEEL_PTY_CLIENT_HIGH_WATER', default: '1048576', description: 'Unsent bytes per WebSocket client before the terminal pauses for it.' },
      { env: 'KEEL_PTY_SLOW_CLIENT_GRACE_MS', default: '5000', description: 'How long a client may stay behind before it is disconnected.' },
    ],
  },
  {
    title: 'Memory',
    settings: [
      { env: 'KEEL_INGEST_CONCURRENCY', default: '4', description: 'Documents processed at once by this process.' },
      { env: 'KEEL_INGEST_LEASE_MS', default: '60000', description: 'How long a claimed document stays reserved without progress before another worker resumes it.' },
      { env: 'KEEL_DREAM_DELAY_MS', default: '2000', description: 'dreaming: dynamic quiet period after the last update of a customId or conversation.' },
      { env: 'KEEL_FETCH_MAX_BYTES', default: '10485760', description: 'URL ingestion: largest body fetched.' },
      { env: 'KEEL_FETCH_TIMEOUT_MS', default: '15000', description: 'URL ingestion: time allowed for one fetch.' },
      { env: 'KEEL_FETCH_MAX_REDIRECTS', default: '5', description: 'URL ingestion: redirects followed.' },
      { env: 'KEEL_EXTRACT_MAX_MEMORY_MB', default: '256', description: 'Resident memory of one extraction process (the separate process that reads uploaded files and fetched pages); past it the process is killed and the document fails naming this.' },
      { env: 'KEEL_EXTRACT_TIMEOUT_MS', default: '60000', description: 'Time one document may take to read.' },
      { env: 'KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES', default: '209715200', description: 'What a zip container\'s entries may declare in all (nested archives included), and what a PDF\'s Flate streams may inflate to.' },
      { env: 'KEEL_EXTRACT_MAX_RATIO', default: '100', description: 'Largest uncompressed/compressed ratio of one zip entry or PDF stream over 1 MB.' },
      { env: 'KEEL_EXTRACT_MAX_ZIP_ENTRIES', default: '10000', description: 'Files in a zip container, nested archives included.' },
      { env: 'KEEL_EXTRACT_MAX_TEXT_CHARS', default: '10000000', description: 'Characters of text one document may yield.' },
      { env: 'KEEL_EXTRACT_MAX_ATTEMPTS', default: '3', description: 'Extractions a document may start (a crash or kill counts) before it fails for good.' },
      { env: 'KEEL_INGEST_WEBHOOKS', default: 'unset', description: 'Comma-separated URLs that receive every document status transition.' },
      { env: 'KEEL_INGEST_WEBHOOK_SECRET', default: 'unset', description: 'Signs webhook bodies: x-keel-signature: sha256=<HMAC-SHA256 hex>.' },
      { env: 'KEEL_INGEST_WEBHOOK_ATTEMPTS', default: '8', description: 'Attempts per delivery (first included) before it is given up and logged.' },
      { env: 'KEEL_INGEST_WEBHOOK_BACKOFF_MS', default: '1000', description: 'First retry delay; doubles per attempt, capped at 60 s, jittered.' },
      { env: 'KEEL_INGEST_WEBHOOK_TIMEOUT_MS', default: '5000', description: 'Time a receiver has to answer one attempt.' },
      { env: 'KEEL_INGEST_WEBHOOK_CONCURRENCY', default: '8', description: 'Attempts in flight per receiver (per process).' },
      { env: 'KEEL_INGEST_WEBHOOK_QUEUE_LIMIT', default: '10000', description: 'Deliveries kept per receiver in the outbox; beyond it the oldest are dropped and logged.' },
      { env: 'KEEL_MEMORY_LLM_URL', default: 'unset', description: 'OpenAI-compatible chat endpoint (<url>/chat/completions) that extracts memories; unset: the deterministic extractor.' },
      { env: 'KEEL_MEMORY_LLM_MODEL', default: 'gpt-4o-mini', description: 'Model of the memory extractor.' },
      { env: 'KEEL_MEMORY_LLM_API_KEY', default: 'unset', description: 'API key of the memory extractor.' },
      { env: 'KEEL_MEMORY_LLM_TIMEOUT_MS', default: '30000', description: 'One extraction call, retries included (keep it under KEEL_INGEST_LEASE_MS).' },
      { env: 'KEEL_MEMORY_LLM_RETRIES', default: '2', description: 'Retries of a retryable model failure (429, 5xx, connection).' },
      { env: 'KEEL_MEMORY_LLM_CONTEXT', default: '100', description: 'Latest memories of the container shown to the model for relation decisions.' },
      { env: 'KEEL_MEMORY_LLM_WINDOW_CHARS', default: '12000', description: 'Characters of text per model call; longer documents go in several windows.' },
      { env: 'KEEL_MEMORY_LLM_JSON_SCHEMA', default: 'true', description: 'Ask for json_schema structured output; false asks for json_object.' },
      { env: 'KEEL_EMBEDDING_URL', default: 'unset', description: 'OpenAI-compatible embeddings (<url>/embeddings); unset: full-text retrieval only.' },
      { env: 'KEEL_EMBEDDING_MODEL', default: 'text-embedding-3-small', description: 'Embedding model.' },
      { env: 'KEEL_EMBEDDING_API_KEY', default: 'unset', description: 'API key of the embeddings endpoint.' },
      { env: 'KEEL_VECTOR_SAVE_INTERVAL_MS', default: '300000', description: 'How often a changed usearch vector index is saved under $KEEL_DATA_DIR/vectors (also at shutdown), so a restart loads it instead of rebuilding; 0: never saved.' },
      { env: 'KEEL_VECTOR_EXACT_LIMIT', default: '20000', description: 'SQLite: vectors an exact sqlite-vec scan answers; beyond, the usearch HNSW index.' },
    ],
  },
  {
    title: 'Routing manager',
    settings: [
      { env: 'KEEL_MM_TRAEFIK_CONF_DIR', aliases: ['TRAEFIK_CONF_DIR'], default: 'unset: no file', description: 'Directory of resource-overrides.yml (Traefik\'s providers.file.directory).' },
      { env: 'KEEL_MM_GENERATE_INTERVAL_SECONDS', aliases: ['GENERATE_INTERVAL_SECONDS'], default: '10', description: 'Periodic rewrite check (changes are written at once anyway); 0: only after changes.' },
      { env: 'KEEL_MM_HISTORY_MAX', default: '200', description: 'Generations of the Traefik configuration kept in its history (GET /api/traefik-config/history); the latest is always kept.' },
      { env: 'KEEL_MM_HISTORY_DAYS', default: '30', description: 'Days a generation stays in that history; the latest is always kept.' },
      { env: 'KEEL_MM_CHECK_INTERVAL_SECONDS', aliases: ['CHECK_INTERVAL_SECONDS'], default: '30 (0 under NODE_ENV=test)', description: 'Data-source poll period; 0: watcher off.' },
      { env: 'KEEL_MM_PANGOLIN_URL', aliases: ['PANGOLIN_API_URL'], default: 'unset: a placeholder, not polled', description: 'Initial URL of the pangolin data source.' },
      { env: 'KEEL_MM_TRAEFIK_URL', aliases: ['TRAEFIK_API_URL'], default: 'unset: a placeholder, not polled', description: 'Initial URL of the traefik data source.' },
      { env: 'KEEL_MM_CONFIG_DIR', default: '$KEEL_DATA_DIR/middleware-manager', description: 'Where config.json (data sources) lives.' },
      { env: 'KEEL_MM_CERT_RESOLVER', default: 'letsencrypt', description: 'tls.certResolver of generated routers.' },
      { env: 'KEEL_MM_DEFAULT_MIDDLEWARES', default: 'empty', description: 'id[:priority],… attached to every new resource (priority 200 if omitted).' },
      { env: 'KEEL_MM_FETCH_TIMEOUT_SECONDS', default: '5', description: 'Data-source fetch, connection test and plugin catalogue timeout.' },
      { env: 'KEEL_PLUGIN_CATALOGUE_URL', aliases: ['PLUGINS_JSON_URL'], default: 'unset: the bundled catalogue', description: 'Plugin Hub catalogue (a JSON list in v3\'s plugins.json format).' },
      { env: 'KEEL_MM_TRAEFIK_STATIC_CONFIG_PATH', aliases: ['TRAEFIK_STATIC_CONFIG_PATH'], default: 'unset', description: 'Traefik static configuration file the Plugin Hub edits, until one is set through the API.' },
    ],
  },
];

/** Every setting, flat. */
export const SETTINGS: SettingSpec[] = SETTING_GROUPS.flatMap((group) => group.settings);

/** The settings as Markdown tables, one per group: the generated part of docs/configuration.md. */
export function settingsMarkdown(groups: SettingGroup[] = SETTING_GROUPS): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return groups
    .map((group) => {
      const rows = group.settings.map((s) => {
        const names = [`\`${s.env}\``, ...(s.aliases ?? []).map((a) => `\`${a}\``)].join(', ');
        return `| ${names}${s.flag ? ` (\`${s.flag}\`)` : ''} | ${cell(s.default)} | ${cell(s.description)} |`;
      });
      return [`## ${group.title}`, '', '| variable | default | meaning |', '| --- | --- | --- |', ...rows].join('\n');
    })
    .join('\n\n');
}
