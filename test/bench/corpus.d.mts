// Types of corpus.mjs for the TypeScript tests that generate a corpus.
export declare const CORPUS_VERSION: number;
export declare function prng(seed: number): () => number;
export declare function corpusDir(n: number): string;
export declare function ensureCorpus(n: number): { dir: string; notes: number; bytes: number; folders: number; version: number };
export declare function writeCorpus(dir: string, n: number): { bytes: number; folders: number };
