import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './keel';

/** deploy/nginx/: the configuration files operators copy, which the tests use verbatim. */
export const DEPLOY_NGINX = join(__dirname, '..', '..', 'deploy', 'nginx');

export function nginxBinary(): string {
  const found = spawnSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  if (!found) throw new Error('nginx is not installed: this test drives Keel through it (apt-get install -y nginx; .ci/run installs it)');
  return found;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A deploy/nginx/ file with its loopback ports swapped, all in one pass (`{ 4096: 41234 }`): a port
 * put in by one swap is never read by the next, even when it begins with another one's placeholder.
 */
export function withPorts(text: string, ports: Record<number, number | string>): string {
  return text.replace(/127\.0\.0\.1:(\d+)\b/g, (address, port: string) => (port in ports ? `127.0.0.1:${ports[Number(port)]}` : address));
}

export interface Nginx {
  url: string;
  port: number;
  /** Its own directory (configuration, logs, temporary files). */
  prefix: string;
  accessLog: () => string;
  stop(): Promise<void>;
}

/**
 * nginx in the foreground with its own prefix, pid and logs. `http` gives the body of the `http { }`
 * block for the prefix and the port to listen on; nginx counts as started once `probe` answers.
 */
export async function startNginx(http: (prefix: string, port: number) => string, probe = '/'): Promise<Nginx> {
  const binary = nginxBinary();
  const prefix = tempDir('keel-nginx-');
  mkdirSync(join(prefix, 'logs'));
  const port = await freePort();
  writeFileSync(
    join(prefix, 'nginx.conf'),
    `daemon off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log warn;
events { worker_connections 256; }
http {
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  access_log ${prefix}/logs/access.log;
${http(prefix, port)}
}
`,
  );
  const child: ChildProcess = spawn(binary, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'logs', 'error.log')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}:\n${output}`);
    try {
      await fetch(`${url}${probe}`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`nginx did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    port,
    prefix,
    accessLog: () => readFileSync(join(prefix, 'logs', 'access.log'), 'utf8'),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGQUIT');
        await exited;
      }
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
