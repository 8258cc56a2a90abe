import { renderCommandTemplate, splitArguments } from './command-template';

describe('command templates', () => {
  it('splits arguments like a shell, dropping quotes', () => {
    expect(splitArguments(`one "two words" 'three' four`)).toEqual(['one', 'two words', 'three', 'four']);
    expect(splitArguments('   ')).toEqual([]);
  });

  it('fills $1…$n, lets the highest swallow the rest, and $ARGUMENTS takes the raw string', () => {
    expect(renderCommandTemplate('Fix $1 in $2', 'bug src/a.ts src/b.ts')).toBe('Fix bug in src/a.ts src/b.ts');
    expect(renderCommandTemplate('Fix $1 in $2 ($ARGUMENTS)', '"the bug"')).toBe('Fix the bug in  ("the bug")');
    expect(renderCommandTemplate('A $2 then $1 and $1', 'x y z')).toBe('A y z then x and x');
  });

  it('appends arguments to a template without placeholders', () => {
    expect(renderCommandTemplate('Review the code.\n', 'focus on tests')).toBe('Review the code.\n\nfocus on tests');
    expect(renderCommandTemplate('Review the code.', '')).toBe('Review the code.');
  });
});
