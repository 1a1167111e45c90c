export { contentStreams, decodeWinAnsi, documentText, readCrossReference, shownTexts } from './pdf-inspection';
export type { CrossReference, ShownText } from './pdf-inspection';
