import { execFileSync } from 'node:child_process';

// package.json overrides @nestjs/common's file-type 22 (Node 22+) with 21.x (Node 20+). This proves
// the validator that loads it still detects a type on the Node that runs Keel. It runs in a plain
// Node process: Jest's resolver cannot load file-type (an import-only ESM package).
const script = `
const { FileTypeValidator } = require('@nestjs/common');
const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4040000000049454e44ae426082', 'hex');
const file = { mimetype: 'image/png', buffer: png, size: png.length };
Promise.all(['image/png', 'image/jpeg'].map((fileType) => new FileTypeValidator({ fileType }).isValid(file)))
  .then((answers) => process.stdout.write(JSON.stringify(answers)));
`;

describe('file-type override', () => {
  it('lets FileTypeValidator recognise a PNG on this Node', () => {
    const output = execFileSync(process.execPath, ['-e', script], { cwd: __dirname, encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual([true, false]);
  });
});
