// Every console page as [name, path]: bench/console-screenshots.mjs screenshots each one and
// test/console-narrow-browser.e2e-spec.ts checks each at 390 px. `q` is a project's `directory=` query,
// `sessionID` a session in it; `file` opens that file on the files page and `resource` adds a resource's page.
export function consolePages({ q, sessionID, file, resource }) {
  return [
    ['overview', '/ui/'],
    ['sessions', `/ui/sessions?${q}`],
    ['session', `/ui/sessions/${sessionID}?${q}`],
    ['files', `/ui/sessions/files?${q}${file ? `&session=${sessionID}&file=${encodeURIComponent(file)}` : ''}`],
    ['terminal', `/ui/sessions/terminal?${q}`],
    ['memory-documents', '/ui/memory/documents'],
    ['memory-search', '/ui/memory/search'],
    ['memory-memories', '/ui/memory/memories'],
    ['memory-profiles', '/ui/memory/profiles'],
    ['memory-pipeline', '/ui/memory/pipeline'],
    ['memory-settings', '/ui/memory/settings'],
    ['api-keys', '/ui/keys'],
    ['routing-dashboard', '/ui/routing'],
    ['routing-resources', '/ui/routing/resources'],
    ...(resource ? [['routing-resource', `/ui/routing/resources/${resource}`]] : []),
    ['routing-middlewares', '/ui/routing/middlewares'],
    ['routing-services', '/ui/routing/services'],
    ['routing-datasources', '/ui/routing/datasources'],
    ['routing-traefik-config', '/ui/routing/traefik-config'],
    ['routing-traefik-changes', '/ui/routing/traefik-config?view=changes'],
    ['routing-plugins', '/ui/routing/plugins'],
    ['not-found', '/ui/no-such-page'],
  ];
}
