import { fieldRefused } from '@ledger/platform';
import { EvidenceKind } from './consent.events';

/**
 * The media types evidence of each kind may be recorded with, and the file
 * extension its download is named with. Staff and auditors open evidence in
 * a browser: a type the tenant chose freely (`text/html`, `image/svg+xml`)
 * would turn stored bytes into a page that runs under the service's origin.
 * Each type here is data for a player or a viewer. Electronic evidence is the
 * certificate the service renders.
 */
export const EVIDENCE_MEDIA_TYPES: Readonly<Record<EvidenceKind, Readonly<Record<string, string>>>> = {
  electronic: { 'application/pdf': 'pdf' },
  audio_recording: {
    'audio/mpeg': 'mp3',
    'audio/mp4': 'm4a',
    'audio/x-m4a': 'm4a',
    'audio/aac': 'aac',
    'audio/ogg': 'ogg',
    'audio/opus': 'opus',
    'audio/wav': 'wav',
    'audio/x-wav': 'wav',
    'audio/wave': 'wav',
    'audio/webm': 'weba',
    'audio/flac': 'flac',
    'audio/amr': 'amr',
    'audio/amr-wb': 'awb',
    'audio/3gpp': '3gp',
  },
  physical_document: { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg', 'image/tiff': 'tif' },
};

/** Supplied or referenced evidence is recorded only with a media type of its kind: otherwise 400 on `evidence.mediaType`. */
export function checkEvidenceMediaType(kind: EvidenceKind, mediaType: string): void {
  const accepted = EVIDENCE_MEDIA_TYPES[kind];
  if (!Object.hasOwn(accepted, mediaType)) {
    throw fieldRefused('evidence.mediaType', 'media_type_not_accepted', `${kind} evidence takes one of these media types: ${Object.keys(accepted).join(', ')}.`);
  }
}

/**
 * How held evidence is served: with its recorded media type when its kind
 * accepts it, else as opaque bytes (evidence recorded before the list
 * existed), and the extension of the download's file name.
 */
export function evidenceDownloadType(kind: EvidenceKind, mediaType: string): { mediaType: string; extension: string } {
  const accepted = EVIDENCE_MEDIA_TYPES[kind];
  return Object.hasOwn(accepted, mediaType) ? { mediaType, extension: accepted[mediaType] } : { mediaType: 'application/octet-stream', extension: 'bin' };
}
