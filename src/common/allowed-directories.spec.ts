import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllowedDirectories, allowedRoots } from './allowed-directories';
import { ValidationError } from './errors';
import type { ValidationIssue } from './errors';

describe('AllowedDirectories', () => {
  let base: string;
  let root: string;
  let outside: string;
  let allowed: AllowedDirectories;

  const refusal = async (call: Promise<unknown>): Promise<ValidationIssue> => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues[0];
  };

  beforeAll(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'keel-allowed-')));
    root = join(base, 'root');
    outside = join(base, 'outside');
    mkdirSync(join(root, 'project'), { recursive: true });
    mkdirSync(outside);
    symlinkSync(outside, join(root, 'out'));
    symlinkSync(join(root, 'project'), join(root, 'in'));
    // The root configured through a link: requests may name either form.
    symlinkSync(root, join(base, 'root-link'));
    allowed = new AllowedDirectories(allowedRoots([join(base, 'root-link')]));
  });

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('keeps each root as given and as its real path', () => {
    expect(allowedRoots([join(base, 'root-link'), `${root}/`])).toEqual([join(base, 'root-link'), root]);
    expect(allowedRoots([join(base, 'missing')])).toEqual([join(base, 'missing')]);
  });

  it('answers the real path of a directory inside, named directly or through a link', async () => {
    expect(await allowed.real(join(root, 'project'))).toBe(join(root, 'project'));
    expect(await allowed.real(join(base, 'root-link', 'in'))).toBe(join(root, 'project'));
  });

  it('refuses a link leading out, naming the field, and says the same for anything outside whether it exists or not', async () => {
    expect(await refusal(allowed.real(join(root, 'out'), 'cwd'))).toEqual({
      code: 'custom',
      path: ['cwd'],
      message: 'cwd leads outside the directories this server may use through a symbolic link',
    });
    const existing = await refusal(allowed.real(outside));
    const missing = await refusal(allowed.real(join(base, 'nothing-here')));
    expect(existing).toEqual(missing);
    expect(existing.message).toBe('directory is outside the directories this server may use');
    expect((await refusal(allowed.real(join(root, 'missing')))).message).toBe('directory does not exist or is not a directory');
  });

  it('locates a file to write only when it really is inside', async () => {
    expect(await allowed.realLocation(join(root, 'in', 'new.json'))).toBe(join(root, 'project', 'new.json'));
    expect(await allowed.realLocation(join(root, 'out', 'new.json'))).toBeUndefined();
  });
});
