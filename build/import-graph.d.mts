// Types of build/import-graph.mjs, for test/architecture/.
export interface Layer {
  name: string;
  why: string;
  /** Folders ("db/"), files ("clock.ts") or deeper paths ("metrics/registry.ts") under src/. */
  entries: string[];
}

/** One import: paths relative to the source root, with "/" separators. */
export interface Arrow {
  from: string;
  to: string;
}

export interface AllowedArrow extends Arrow {
  why: string;
}

export interface LayeredArrow extends Arrow {
  fromLayer: string;
  toLayer: string;
}

export interface FolderPair {
  folders: [string, string];
  /** The first folder's imports of the second. */
  forth: Arrow[];
  /** The second folder's imports of the first. */
  back: Arrow[];
}

export interface ImportAnalysis {
  fileCount: number;
  importCount: number;
  /** Files in no layer, faults of the table and of the allow-list, relative imports that name no file. */
  tableProblems: string[];
  /** Each a closed path: [a, b, a]. */
  circles: string[][];
  folderPairs: FolderPair[];
  httpToDomain: (Arrow & { toLayer: string })[];
  /** Upward imports not on the allow-list. */
  upward: LayeredArrow[];
  allowedUpward: LayeredArrow[];
  passes: boolean;
}

export interface AnalyseOptions {
  /** The source root (default: the repository's src/). */
  root?: string;
  layerTable?: Layer[];
  allowed?: AllowedArrow[];
  allowedLimit?: number;
}

export declare const layers: Layer[];
export declare const allowedUpward: AllowedArrow[];
export declare const maxAllowedUpward: number;
export declare function listSourceFiles(root: string): string[];
export declare function importSpecifiersOf(text: string): string[];
export declare function readImports(root: string, files: string[]): { imports: Map<string, Set<string>>; unresolved: { from: string; specifier: string }[] };
export declare function placeFiles(files: string[], layerTable: Layer[]): { places: Map<string, { entry: string; layer: string; rank: number }>; problems: string[] };
export declare function findCircles(imports: Map<string, Set<string>>): string[][];
export declare function folderOf(file: string): string;
export declare function findFolderPairs(arrows: Arrow[]): FolderPair[];
export declare function analyseImports(options?: AnalyseOptions): ImportAnalysis;
export declare function describeCircles(circles: string[][]): string[];
export declare function describeFolderPairs(pairs: FolderPair[]): string[];
export declare function describeHttpToDomain(arrows: Arrow[]): string[];
export declare function describeUpward(arrows: LayeredArrow[], title?: string): string[];
export declare function describeTableProblems(problems: string[]): string[];
export declare function formatReport(analysis: ImportAnalysis): string;
