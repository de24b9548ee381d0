// Types of sceneria's JavaScript API (api/sceneria.mjs; docs/api.md).

export interface SceneriaError extends Error {
  /** "io", "truncated", "bad_magic", "unsupported_version", "bad_chunk_size", "bad_count", "bad_value", "unknown_format", "aborted", "closed" */
  code: string;
  /** Byte offset in the file where the problem was found. */
  offset?: number;
  /** The file it was found in (a scenery reads includes, models and textures too). */
  file?: string;
  line?: number;
  column?: number;
}

export interface Progress { phase: string; fraction: number }

/** Bytes, a File or Blob (browser), a URL (fetched whole), a file path (Node), or a map of dropped files. */
export type Source = Uint8Array | ArrayBuffer | Blob | URL | string | FileMap;
/** Relative path → the file: a File or Blob (browser), bytes, or a file path (Node). */
export type FileMap = Record<string, Blob | Uint8Array | ArrayBuffer | string>;

export interface OpenOptions {
  /** What the bytes are called (formats are told apart by content first, then by name). */
  name?: string;
  /** Files the document refers to (includes, models, textures): a map, or (Node) a folder path. */
  assets?: FileMap | string;
  /** For a file map: the path of the document to open (default: the folder's root, as the page opens it: the file no other names, api/pick.mjs). */
  main?: string;
  /** Its format's open choices by param ({ smoothing: "soc" }): FormatInfo.choices lists them, SceneriaDocument.choices() what a file offers. One its format does not take is refused (code "bad_value"). */
  params?: Record<string, string>;
  onProgress?: (progress: Progress) => void;
  signal?: AbortSignal;
}

/** A choice a format offers when a file is opened: declared by the format, offered by a file with the value in use. */
export interface Choice {
  /** The key of OpenOptions.params (and of the CLI's --param). */
  param: string;
  label: string;
  /** One sentence: what it changes. */
  help: string;
  /** Values "false" and "true": a check box. */
  toggle: boolean;
  /** Declared: the values every file takes (empty: each file offers its own). From a document: those it offers. */
  values: { value: string; label: string }[];
  /** Declared: the default. From a document: the value it was opened with. */
  value: string;
}

export interface WriterInfo {
  id: string; extension: string; description: string; params: string;
  /** It makes files beside its output that cannot go inside it (an OBJ's .mtl): convert with `separate: true`. */
  files: boolean;
}
export interface FormatInfo {
  id: string; name: string; extensions: string[]; reads: boolean; streams: boolean;
  writes: WriterInfo[]; companions: string; generate: boolean;
  /** Where a path opened without `assets` looks for what it names: the nearest folder of this name above it ("scenery", "gamedata"; "" for its own folder). */
  assetsFolder: string;
  /** Or the nearest folder above it that holds this path, without case ("common/common.res": a Hard Truck game's root). */
  assetsRootHolds: string;
  /** What may be chosen when a file of it is opened (OpenOptions.params). */
  choices: Choice[];
}
export interface ListInfo { id: string; label: string; count: number; browsable?: boolean }
export interface Row { i: number; name: string; detail: string; depth?: number }
export interface SectionInfo {
  row: number; col: number;
  origin: [number, number, number]; min: [number, number, number]; max: [number, number, number];
  instances: number; batches: number;
}
export interface Summary {
  format: string; version: number | string; size: number;
  counts?: Record<string, number>;
  lists: ListInfo[];
  /** The open choices this file offers, each with the value in use. */
  choices: Choice[];
  missingFiles: string[];
  warnings: { file: string; offset: number; message: string; line?: number; column?: number }[];
  capabilities: { streams: boolean; writes: WriterInfo[] };
  [key: string]: unknown;
}

export declare class SceneriaDocument {
  /** The name the document was opened under. */
  readonly name: string;
  /** The registry id of its format ("eu7b", "scenery-text", "e3d", ...). */
  readonly format: string;
  /** One line: format, version and what it holds. */
  readonly headline: string;
  info(): Summary;
  /** The open choices this file offers (info().choices); open again with `params` for another. */
  choices(): Choice[];
  lists(): ListInfo[];
  sections(): Promise<SectionInfo[]>;
  objects(options?: { list?: string; first?: number; count?: number }): Promise<Row[]>;
  record(list: string, index: number): Promise<Record<string, unknown> | null>;
  /** Stops its worker. */
  close(): void;
}

export interface ConvertOptions {
  /** A writer id or extension: "glb", "gltf", "obj", "json", "eu7", "scn", "scnb", ... (info().capabilities.writes). */
  to: string;
  /** The output's file name (files beside it are named after it). Default: the document's name with the target's extension. */
  name?: string;
  /** Files beside the output come back in `files` (an OBJ's .mtl and images, a .gltf's .bin) instead of inside it where the format can. */
  separate?: boolean;
  /** Drop what the target cannot hold, as the reference tools do, listing each drop in `losses` (default true). */
  lossy?: boolean;
  /** Scene exports: EXT_mesh_gpu_instancing (default true) or a node per model. */
  instancing?: boolean;
  /** Scene exports: wires as line primitives, thin ribbons, or left out. */
  lines?: 'lines' | 'ribbons' | 'none';
  /** Scene exports: subtract a whole-metre offset (recorded in extras); "auto" when over 10 km from the origin. */
  recentre?: boolean | 'auto';
  /** Scene exports: "x,z,radius" or "x0,y0,z0,x1,y1,z1" (metres). */
  area?: string;
  /** Scene exports: record fields in glTF extras (default true). */
  extras?: boolean;
  /** Scene exports: texture images (default true). */
  textures?: boolean;
  /** EU7B: the version (4..9) and PACK format of the module written. */
  version?: number | string;
  'pack-format'?: string;
  onProgress?: (progress: Progress) => void;
  /** Aborting stops the document's worker: the conversion rejects and the document closes. */
  signal?: AbortSignal;
}

export interface Converted {
  name: string;
  bytes: Uint8Array;
  files: { name: string; bytes: Uint8Array }[];
  /** The output and its files in one stored ZIP, when there are files; otherwise null. */
  zip: Uint8Array | null;
  writer: string;
  extension: string;
  losses: string[];
  /** Texture images a scene export holds (0: none of its textures was found). */
  images: number;
  /** What the writer says about reading its output, in its options' terms ('' when nothing). */
  advice: string;
}

export declare function formats(): Promise<FormatInfo[]>;
export declare function open(source: Source, options?: OpenOptions): Promise<SceneriaDocument>;
export declare function convert(document: SceneriaDocument, options: ConvertOptions): Promise<Converted>;

/** What a viewer's open answers (Session.open, openUrl). */
export interface Opened {
  /** The document's id: requests naming one a newer open replaced resolve to null. */
  doc: number;
  name: string;
  format: string;
  headline: string;
  summary: Summary;
  lists: ListInfo[];
  /** The serialized scene for Viewer.loadScene. */
  scene: Uint8Array;
  /** Its visuals come by camera ticks (a scenery's infrastructure first). */
  staged?: boolean;
  /** Its models load by camera ticks, from the assets given. */
  models?: boolean;
  parseMs?: number;
  /** Opened by HTTP Range requests (a URL, or a File over 64 MiB). */
  stream?: { url: string | null; size: number; start: [number, number, number]; layout: unknown; bytes: number; requests: number };
  reloaded?: boolean;
}

/** A viewer's session: one worker whose open document each open replaces (docs/api.md). */
export declare class Session {
  static start(): Promise<Session>;
  formats(): Promise<{ formats: FormatInfo[]; accept: string }>;
  configure(options?: { decodeBlocks?: boolean }): Promise<object>;
  open(data: Blob | Uint8Array, options?: { name?: string; assets?: { path: string; file?: Blob; data?: Uint8Array }[];
                                           params?: Record<string, string>; onProgress?: (p: Progress) => void }): Promise<Opened>;
  examples(): Promise<{ id: string; title: string; what: string; view?: [number, number, number, number, number, number] }[]>;
  exampleFiles(id: string): Promise<{ path: string; bytes: Uint8Array }[]>;
  openUrl(url: string, options?: { onProgress?: (p: Progress) => void; fetch?: { timeoutMs?: number; retries?: number } }): Promise<Opened>;
  /** One camera tick: scene deltas to add, sections to drop, stats (docs/api.md). */
  /** `view.modelShown`: whether the view has drawn a streamed model with its texture yet (the
   * stream holds the ring around its first section until then; left out, until one has loaded). */
  camera(doc: number, x: number, y: number, z: number, view?: { modelShown?: boolean }): Promise<Record<string, unknown> | null>;
  rows(doc: number, list: string, first: number, count: number, group?: number | null): Promise<Row[] | null>;
  search(doc: number, list: string, query: string, limit?: number): Promise<Row[] | null>;
  record(doc: number, list: string, index: number): Promise<Record<string, unknown> | null>;
  write(doc: number, to: string, options?: { params?: Record<string, unknown>; lossy?: boolean; name?: string;
                                            onProgress?: (p: Progress) => void }): Promise<(Converted & { reads: { requests: number; bytes: number } | null }) | null>;
  bake(doc: number): Promise<{ files: { path: string; bytes: Uint8Array }[]; missing: string[] } | null>;
  close(): void;
}
