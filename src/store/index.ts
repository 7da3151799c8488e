// The recognition store: IndexedDB persistence of galleries (gallery-store.ts) and the
// in-memory search over them (search-index.ts). See docs/store.md.
export { GalleryStore, type CommitListener, type CommittedWrite, type GalleryContents, type GalleryStoreOptions, type ImportItem, type SubjectRemoval, type TemplateSummary } from './gallery-store.ts';
export { GallerySearchIndex, type IndexStats, type IndexTarget, type SearchIndexOptions } from './search-index.ts';
export { EmbeddingMatrix, type MatrixMemory, type MatrixOptions, type SubjectMatch, type TemplateMatch } from './matrix.ts';
export { DEFAULT_SEGMENT_ROWS } from './segments.ts';
export { changeChannelName, type StoreChange } from './changes.ts';
export { GALLERY_FILE_FORMAT, GALLERY_FILE_VERSION, GalleryFileSchema, decodeGalleryFile, encodeGalleryFile, type DecodedGallery, type GalleryFile } from './gallery-file.ts';
export type { KernelChoice, KernelKind } from './kernel.ts';
export {
  DB_VERSION,
  DEFAULT_STORAGE_NAME,
  NewTemplateSchema,
  StoredTemplateSchema,
  type Box,
  type GalleryDB,
  type NewTemplate,
  type StoredTemplate,
} from './schema.ts';
