import { refusalOf } from '@ledger/platform/testing';
import { checkEvidenceMediaType, evidenceDownloadType } from './evidence-media-types';

describe('evidence media types', () => {
  it('takes the audio types of a recording and the document types of a paper original, and nothing of the other kind', () => {
    for (const mediaType of ['audio/mpeg', 'audio/mp4', 'audio/aac', 'audio/ogg', 'audio/opus', 'audio/wav', 'audio/x-wav', 'audio/webm', 'audio/flac', 'audio/amr']) {
      expect(() => checkEvidenceMediaType('audio_recording', mediaType)).not.toThrow();
    }
    for (const mediaType of ['application/pdf', 'image/png', 'image/jpeg', 'image/tiff']) {
      expect(() => checkEvidenceMediaType('physical_document', mediaType)).not.toThrow();
    }
    for (const [kind, mediaType] of [
      ['audio_recording', 'text/html'],
      ['audio_recording', 'application/pdf'],
      ['audio_recording', 'AUDIO/MPEG'],
      ['audio_recording', 'audio/mpeg; codecs=mp3'],
      ['audio_recording', 'toString'],
      ['physical_document', 'image/svg+xml'],
      ['physical_document', 'application/xhtml+xml'],
      ['physical_document', 'audio/mpeg'],
    ] as const) {
      const refusal = refusalOf(() => checkEvidenceMediaType(kind, mediaType));
      expect({ mediaType, errors: refusal.errors }).toEqual({ mediaType, errors: [{ field: 'evidence.mediaType', reason: 'media_type_not_accepted' }] });
      expect(refusal.detail).not.toContain(mediaType);
    }
  });

  it('serves a recorded type of the kind with its extension, and any other (recorded before the list) as opaque bytes', () => {
    expect(evidenceDownloadType('audio_recording', 'audio/mpeg')).toEqual({ mediaType: 'audio/mpeg', extension: 'mp3' });
    expect(evidenceDownloadType('physical_document', 'image/jpeg')).toEqual({ mediaType: 'image/jpeg', extension: 'jpg' });
    expect(evidenceDownloadType('electronic', 'application/pdf')).toEqual({ mediaType: 'application/pdf', extension: 'pdf' });
    for (const [kind, recorded] of [['audio_recording', 'text/html'], ['physical_document', 'audio/mpeg'], ['audio_recording', 'constructor']] as const) {
      expect(evidenceDownloadType(kind, recorded)).toEqual({ mediaType: 'application/octet-stream', extension: 'bin' });
    }
  });
});
