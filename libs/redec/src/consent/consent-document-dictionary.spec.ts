import { createHash } from 'node:crypto';
import { CONSENT_DOCUMENT_DICTIONARY } from './consent-document-dictionary';
import { consentsProjection } from './consents.projection';

describe('the consent documents’ dictionary', () => {
  // A document deflated with one dictionary cannot be read with another: a new dictionary needs a new version, which rebuilds the model.
  it('changes only with the projection’s version (update both figures together)', () => {
    expect({ version: consentsProjection.version, dictionarySha256: createHash('sha256').update(CONSENT_DOCUMENT_DICTIONARY).digest('hex') }).toEqual({
      version: 8,
      dictionarySha256: 'af17b8b0d5d3d47886952703138288287cb33b306ef4e7bac7b37e614feef7e5',
    });
  });

  it('is what the projection compresses with', () => {
    expect(consentsProjection.compression).toEqual({ dictionary: CONSENT_DOCUMENT_DICTIONARY });
  });
});
