import { request } from 'node:http';
import { launchChromium, step } from './support/browser';
import { expectSessionError } from './support/error-bodies';
import { startKeel, TestKeel } from './support/keel';

const PASSWORD = 'throttle-secret';

/** POST /keel/login over real HTTP, from the given loopback source address. */
function login(keel: TestKeel, password: string, localAddress = '127.0.0.1'): Promise<{ status: number; retryAfter?: string; body: any }> {
  const url = new URL('/keel/login', keel.url);
  const payload = JSON.stringify({ password });
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

// The console's sign-in refuses an address after 10 wrong passwords in a minute (docs/security.md).
describe('Console sign-in throttle', () => {
  let keel: TestKeel;
  beforeAll(async () => {
    keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD } });
  });
  afterAll(() => keel.close());

  it('answers 429 with Retry-After after 10 failures from one address, even to the right password; other addresses still sign in', async () => {
    // A success forgets earlier failures.
    for (let i = 0; i < 5; i++) expect((await login(keel, 'wrong')).status).toBe(401);
    expect((await login(keel, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      const wrong = await login(keel, `wrong-${i}`);
      expect(wrong.status).toBe(401);
      expectSessionError(wrong.body, 'UnauthorizedError');
    }
    for (const password of ['wrong-again', PASSWORD]) {
      const refused = await login(keel, password);
      expect(refused.status).toBe(429);
      const seconds = Number(refused.retryAfter);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(60);
      const body = expectSessionError(refused.body, 'TooManyRequestsError');
      expect(body.data).toEqual({ retryAfter: seconds, message: `Too many failed sign-ins from this address: try again in ${seconds} s` });
    }
    const elsewhere = await login(keel, PASSWORD, '127.0.0.2');
    expect(elsewhere.status).toBe(200);
  });

  it('says so on the sign-in page, next to the password (the address is still refused)', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await step(page, 'sign-in-throttled', async () => {
        await page.goto(`${keel.url}/ui/`);
        await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByText(/^Too many failed sign-ins from this address: try again in \d+ s\.$/).waitFor();
        expect(await page.getByText('Keel cannot be reached.').count()).toBe(0);
      });
    } finally {
      await browser.close();
    }
  });
});
