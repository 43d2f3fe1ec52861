// Headings, links, wikilinks, tags and word counts from markdown-it tokens; link targets resolved to note paths.
import * as assert from 'node:assert/strict';
import { LinkResolver } from '../../../src/core/notes/links';
import { analyseBody } from '../../../src/core/notes/structure';

describe('notes/structure', () => {
  it('finds [[wikilinks]] with |alias and #heading, on their own lines, and ignores ![[embeds]]', () => {
    const s = analyseBody('Intro [[Alpha]]\nthen [[Beta#Part two|the beta]] and [[#Local]]\n![[image.png]]\n', 0);
    assert.deepEqual(s.links, [
      { type: 'wikilink', target: 'Alpha', heading: null, text: 'Alpha', line: 1 },
      { type: 'wikilink', target: 'Beta', heading: 'Part two', text: 'the beta', line: 2 },
      { type: 'wikilink', target: '', heading: 'Local', text: 'Local', line: 2 },
    ]);
  });

  it('finds markdown links with their text and #heading, offset by the frontmatter lines', () => {
    const s = analyseBody('See [the plan](projects/plan.md#goals) and [site](https://x.org).', 3);
    assert.deepEqual(s.links, [
      { type: 'markdown', target: 'projects/plan.md', heading: 'goals', text: 'the plan', line: 4 },
      { type: 'markdown', target: 'https://x.org', heading: null, text: 'site', line: 4 },
    ]);
  });

  it('collects #tags outside code and headings, not numbers or anchors', () => {
    const s = analyseBody('# Heading #notatag?\n\nText #alpha and #beta/sub, issue #42, url a#b.\n\n`#inline-code`\n\n```\n#fenced\n```\n\n    #indented-code\n', 0);
    assert.deepEqual(s.inlineTags, ['alpha', 'beta/sub']);
  });

  it('collects headings with level, text and line, and counts prose words', () => {
    const s = analyseBody('# One\n\nHello there world.\n\n## Two *emph*\n\n```\nnot counted words here\n```\n', 0);
    assert.deepEqual(s.headings, [
      { level: 1, text: 'One', line: 1 },
      { level: 2, text: 'Two emph', line: 5 },
    ]);
    assert.equal(s.wordCount, 6);
  });
});

describe('notes/structure on hostile and unusual text', () => {
  it('analyses long runs of [[ , [[# and [[a| in time linear in their length (each start fails at the next [)', function () {
    // Each of these took about 40 s at 100 000 characters when the link pattern scanned to the line's end from
    // every `[[`; the test's own timeout is the bound.
    this.timeout(10_000);
    for (const unit of ['[[', '[[#', '[[a|', '[[a#b|c', '![[']) {
      const s = analyseBody(`${unit.repeat(Math.ceil(100_000 / unit.length))} [[Real]]\n`, 0);
      assert.deepEqual(s.links.map((l) => l.target), ['Real'], unit);
    }
  });

  it('takes no # as a tag inside a wikilink, inside link text, or written escaped', () => {
    const s = analyseBody('[[#local]] [[A|see #inalias]] \\#escaped [#linktext](x.md) and #real, also (#paren)\n', 0);
    assert.deepEqual(s.inlineTags, ['real', 'paren']);
    assert.deepEqual(s.links.map((l) => [l.type, l.target, l.heading, l.text]), [
      ['wikilink', '', 'local', 'local'],
      ['wikilink', 'A', null, 'see #inalias'],
      ['markdown', 'x.md', null, '#linktext'],
    ]);
  });

  it('reads a wikilink holding an entity or an escape as one link', () => {
    const s = analyseBody('See [[Tom &amp; Jerry]] and [[a\\_b]].\n', 0);
    assert.deepEqual(s.links.map((l) => l.target), ['Tom & Jerry', 'a_b']);
  });

  it('reads wikilinks whose names hold emphasis markers as links, not emphasis: [[__init__]], [[Report _final_]]', () => {
    const s = analyseBody('See [[__init__]] and [[Report _final_]], [[a ~~b~~]], [[*star*]] and [[Note|*pretty*]].\n', 0, {});
    assert.deepEqual(
      s.links.map((l) => [l.target, l.text]),
      [['__init__', '__init__'], ['Report _final_', 'Report _final_'], ['a ~~b~~', 'a ~~b~~'], ['*star*', '*star*'], ['Note', '*pretty*']],
    );
    assert.equal(s.paragraphs[0], 'See __init__ and Report _final_, a ~~b~~, *star* and *pretty*.');
    // Written escaped, the brackets are text.
    assert.deepEqual(analyseBody('\\[[Not a link]] but _this_ is [[One]]\n', 0).links.map((l) => l.target), ['One']);
  });

  it('gives markdown link targets as written, not percent-encoded, and their headings decoded', () => {
    const s = analyseBody('[a](café.md) [b](<My File.md>) [c](Other.md#Some%20Heading) [d](café.md#Résumé) [e](a%20b.md)\n', 0);
    assert.deepEqual(
      s.links.map((l) => [l.target, l.heading]),
      [['café.md', null], ['My File.md', null], ['Other.md', 'Some Heading'], ['café.md', 'Résumé'], ['a%20b.md', null]],
    );
  });

  it('gives links in table cells the line of their row', () => {
    const s = analyseBody('Intro\n\n| a | b |\n|---|---|\n| [[T5]] | x |\n| y | [[T6\\|al]] [c](C.md) |\n', 0);
    assert.deepEqual(s.links.map((l) => [l.target, l.line]), [['T5', 5], ['T6', 6], ['C.md', 6]]);
  });

  it('counts the lines of an HTML tag that runs over lines', () => {
    const s = analyseBody('one <span\nclass="x">two</span>\nthree [[L3]]\n', 0);
    assert.deepEqual(s.links.map((l) => l.line), [3]);
  });

  it('gives links after a code span, an image, a link title or an HTML tag that run over lines their own line', () => {
    const s = analyseBody(
      [
        'one `code', 'span` [[L2]]', // a code span's line break reads as a space in its text
        '![alt', 'text](p.png) [[L4]]', // an image's alt text is one token
        '[t](T.md "a', 'title") [[L6]]', // a link title's line break is in no token
        '[a', '*b*', '`c', 'd`](Z.md) [[L10]]', // link text over lines, a code span in it
        '<span', 'class="x"> \\', '[[L13]]', // an escaped line end is a hard break
        '',
        'Setext [[L15]]', 'heading [[L16]]', '---',
      ].join('\n') + '\n',
      2,
    );
    assert.deepEqual(s.links.map((l) => [l.target, l.line]), [
      ['L2', 4], ['L4', 6], ['T.md', 7], ['L6', 8], ['Z.md', 9], ['L10', 12], ['L13', 15], ['L15', 17], ['L16', 18],
    ]);
  });

  it('gives a wikilink inside link text over lines, after an entity or an escape, the line it is on', () => {
    const s = analyseBody('[x\ny &amp; \\* [[W2]]\n`c\nd` [[W4]]](Z.md) [[W4b]]\n', 0);
    assert.deepEqual(s.links.map((l) => [l.target, l.line]), [['W2', 2], ['W4', 4], ['Z.md', 1], ['W4b', 4]]);
  });

  it('keeps a URL whole, fragment included, and the space of link text over two lines', () => {
    const s = analyseBody('[l](http://y.com/#anch) [app](https://app/#/route) [multi\nline](M.md#Part)\n', 0);
    assert.deepEqual(s.links.map((l) => [l.target, l.heading, l.text]), [
      ['http://y.com/#anch', null, 'l'],
      ['https://app/#/route', null, 'app'],
      ['M.md', 'Part', 'multi line'],
    ]);
  });
});

describe('notes/links', () => {
  const resolver = new LinkResolver(['index.md', 'projects/Plan.md', 'projects/notes/Plan.md', 'archive/Plan.md', 'a b/c d.md', 'img/pic.png']);

  it('resolves wikilinks by note name anywhere, preferring the same folder, then the shallowest', () => {
    const link = { type: 'wikilink' as const, target: 'plan', heading: null, text: 'plan', line: 1 };
    assert.equal(resolver.resolve(link, 'index.md').path, 'archive/Plan.md');
    assert.equal(resolver.resolve(link, 'projects/notes/x.md').path, 'projects/notes/Plan.md');
    assert.equal(resolver.resolve({ ...link, target: 'projects/notes/Plan' }, 'index.md').path, 'projects/notes/Plan.md');
    assert.equal(resolver.resolve({ ...link, target: 'Missing' }, 'index.md').path, null);
    const tie = new LinkResolver(['a/Note.md', 'B/Note.md']);
    assert.equal(tie.resolve({ ...link, target: 'Note' }, 'x.md').path, 'B/Note.md', 'equally shallow: path order as list_files sorts, whatever the locale');
  });

  it('resolves wikilinks written as paths: / from the root, ./ and ../ from the note, else the root, the note, a path ending', () => {
    const r = new LinkResolver(['Note.md', 'sub/Note.md', 'Other/Note.md', 'sub/Other/Note.md', 'deep/er/Topic.md', 'sub/only/Here.md']);
    const link = { type: 'wikilink' as const, target: '', heading: null, text: '', line: 1 };
    const from = (target: string) => r.resolve({ ...link, target }, 'sub/x.md').path;
    assert.equal(from('/Note'), 'Note.md');
    assert.equal(from('/sub/Note'), 'sub/Note.md');
    assert.equal(from('./Note'), 'sub/Note.md');
    assert.equal(from('../Note'), 'Note.md');
    assert.equal(from('Other/Note'), 'Other/Note.md', 'from the root first');
    assert.equal(from('only/Here'), 'sub/only/Here.md', 'then from the note');
    assert.equal(from('er/Topic'), 'deep/er/Topic.md', 'then a path ending with it');
    assert.equal(from('er/topic.md'), 'deep/er/Topic.md');
    assert.equal(from('r/Topic'), null, 'a path ending means whole folder names');
    assert.equal(from('../../Note'), null, 'never outside the workspace');
    assert.equal(from('/missing/Note'), null);
  });

  it('resolves markdown links relative to the note, URL-decoded, with or without extension, never outside', () => {
    const link = { type: 'markdown' as const, target: '', heading: null, text: '', line: 1 };
    assert.equal(resolver.resolve({ ...link, target: '../a%20b/c%20d.md' }, 'projects/x.md').path, 'a b/c d.md');
    assert.equal(resolver.resolve({ ...link, target: 'Plan' }, 'projects/x.md').path, 'projects/Plan.md');
    assert.equal(resolver.resolve({ ...link, target: '/index.md' }, 'projects/x.md').path, 'index.md');
    assert.equal(resolver.resolve({ ...link, target: '../../etc/passwd' }, 'projects/x.md').path, null);
    assert.deepEqual(resolver.resolve({ ...link, target: 'mailto:a@b.c' }, 'index.md'), { ...link, target: 'mailto:a@b.c', path: null, external: true });
    assert.equal(resolver.resolve({ ...link, target: '', heading: 'top' }, 'index.md').path, 'index.md');
  });
});
