export { BLOB_STORE, BlobCorruptedError, InvalidBlobNameError, assertContentSha256, sha256Hex } from './blobs/blob-store.port';
export type { BlobSealer, BlobStore, StoredBlob } from './blobs/blob-store.port';
export { FilesystemBlobStore } from './blobs/filesystem-blob-store';
export { PostgresBlobStore } from './blobs/postgres-blob-store';
export { CONSENT_CERTIFICATE_MEDIA_TYPE, renderConsentCertificate } from './consent-certificate/consent-certificate';
export type { CertificateRepresentation, ConsentCertificateFacts } from './consent-certificate/consent-certificate';
export { renderTextPdf } from './pdf/pdf-writer';
export type { PdfTextDocument } from './pdf/pdf-writer';
export type { PdfBlock } from './pdf/text-layout';
