// A search that comes while the loader's text worker is still making its early listing sets the listing aside: the
// worker takes the search's work at once, and lists the rest after. A request that waits for the listing takes it
// up again, and a hold never keeps it aside for good. The listing made in steps is the listing made at once.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { listWorkspaceFiles } from '../../../src/core/workspace/listing';
import { prelist, prelister, type Prelisting } from '../../../src/core/workspace/prelist';
import { WorkspaceIndex } from '../../../src/core/workspace/workspace-index';
import { discardPrestartedWorker, prestartTextWorker } from '../../../src/core/workspace/worker-boot';
import { DEFAULT_EXCLUDES, indexOptions } from './index-options';

describe('the early listing set aside while a search runs', function () {
  this.timeout(60_000);
  let root: string;
  const opened: WorkspaceIndex[] = [];

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-prelist-hold-')));
    // Enough folders for several of the worker's steps (it looks at the hold every 32 folders).
    for (let a = 0; a < 12; a++) {
      for (let b = 0; b < 12; b++) {
        const dir = path.join(root, `area ${a}`, `topic ${b}`);
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, `note ${a}-${b}.md`), `# Note ${a}-${b}\n\nneedle in area ${a} topic ${b}\n`);
      }
    }
    fs.mkdirSync(path.join(root, 'node_modules', 'pkg'), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules', 'pkg', 'readme.md'), 'needle in a package\n');
  });

  afterEach(() => {
    for (const index of opened.splice(0)) index.dispose();
    discardPrestartedWorker();
    fs.rmSync(root, { recursive: true, force: true });
  });

  function open(): WorkspaceIndex {
    const index = new WorkspaceIndex(indexOptions(root, { racyMs: 0 }));
    opened.push(index);
    return index;
  }

  /** When the worker sent its early listing (performance.now()), and the listing. */
  function listingOf(worker: Worker): Promise<{ at: number; listing: Prelisting | undefined }> {
    return new Promise((resolve) => {
      const onMessage = (m: { type?: string; listing?: Prelisting }) => {
        if (m.type !== 'prelisting') return;
        worker.off('message', onMessage);
        resolve({ at: performance.now(), listing: m.listing });
      };
      worker.on('message', onMessage);
    });
  }

  const crawl = () => listWorkspaceFiles(root, { excludePatterns: DEFAULT_EXCLUDES, showHiddenFiles: false });

  /** The loader's worker listing the workspace, held from the start (it sets its listing aside after one step). */
  function heldWorker(): { flags: Int32Array; worker: Worker; sent: ReturnType<typeof listingOf> } {
    const flags = new Int32Array(new SharedArrayBuffer(8));
    flags[1] = 1;
    const worker = prestartTextWorker({}, root, flags);
    assert.ok(worker);
    return { flags, worker, sent: listingOf(worker) };
  }

  it('made in steps, is the listing made at once, however small the steps', () => {
    const whole = prelist(fs, root, 1_000_000);
    assert.ok(whole);
    for (const step of [1, 2, 7, 32]) {
      const next = prelister(fs, root, 1_000_000);
      let steps = 0;
      let done: Prelisting | undefined;
      for (;;) {
        const s = next(step);
        steps++;
        if (s.done) {
          done = s.listing;
          break;
        }
      }
      assert.ok(done, `step ${step}`);
      assert.ok(steps > 1, 'it took more than one step');
      assert.deepEqual({ ...done, started: 0, finished: 0 }, { ...whole, started: 0, finished: 0 }, `step ${step}`);
    }
  });

  it("lets the search's work through at once, and lists the rest once the search is done", async () => {
    const { flags, sent } = heldWorker();
    const index = open();
    index.prepareTexts();
    const outcome = await index.walkSearch(index.walkRules([]), { query: 'needle', caseSensitive: true, regex: false, wholeWord: false, maxResults: 1000 });
    const answered = performance.now();
    assert.ok(outcome);
    assert.equal(outcome.results.length, 144, 'every note, none from node_modules');
    assert.equal(flags[1], 0, 'the search let the listing go');
    const { at, listing } = await sent;
    assert.ok(at > answered, 'the listing came after the answer: it waited for the search');
    assert.ok(listing);
    assert.deepEqual(listing.joined.split('\0'), await crawl());
    assert.deepEqual(await (index.fresh().then(() => [...index.listFiles()])), await crawl());
  });

  it('takes a held listing up again when a request waits for it', async () => {
    const { flags, sent } = heldWorker();
    // Time for the worker to boot and set its listing aside before the request comes.
    await sleep(300);
    const index = open();
    const requested = performance.now();
    // A request for the list (the hold is never let go here).
    assert.equal(await index.fresh(), true);
    // Taken up by the request, not by the end of holding (2 s after it began), which would also list it in the end.
    assert.ok(performance.now() - requested < 1000, `the request woke the worker: ${Math.round(performance.now() - requested)} ms`);
    assert.deepEqual([...index.listFiles()], await crawl());
    assert.equal(flags[1], 1, 'still held');
    const { listing } = await sent;
    assert.ok(listing, 'the request had the worker list it whole');
  });

  it('goes on with a listing held for over two seconds: a hold never keeps it aside for good', async () => {
    const started = performance.now();
    const { sent } = heldWorker();
    const { at, listing } = await sent;
    assert.ok(at - started >= 1900, `it waited for the hold: ${Math.round(at - started)} ms`);
    assert.ok(listing);
    assert.deepEqual(listing.joined.split('\0'), await crawl());
  });
});
