export * from './rights-request.events';
export { type RightsDeadlines, complaintDeadline, dueSoonFrom, isExtensible, rightsRequestDueAt } from './rights-clocks';
export {
  type AnswerContent,
  RECTIFIABLE_KINDS,
  answersWithSuppression,
  RIGHTS_TRANSITIONS,
  type Rectification,
  type ReceiveRightsRequest,
  type RightsPolicy,
  type RightsTransition,
  type RightsTransitionTarget,
  decideDeadlineNotice,
  decideRectification,
  checkRectification,
  decideReceiveRightsRequest,
  decideRightsTransition,
  isOverdue,
  checkSubjectReportAsOf,
  subjectReportAsOf,
} from './rights-request.decider';
export * from './subject-report';
export { renderSubjectReportPdf } from './subject-report-pdf';
export { type ProcessingBlockFact, type ProcessingBlocks, blocksProcessingAt, evolveProcessingBlocks, isProcessingBlockFact, processingBlockedAt } from './processing-blocks';
export { type LoadedRightsRequest, type ReceiveRightsRequestInput, type RectifyRightsRequestInput, type RightsRequestDependencies, noticeRightsRequestDeadlines, openUnlessErased, readRightsRequest, readRightsRequestFacts, receiveRightsRequest, rectifyRightsRequest, transitionRightsRequest } from './rights-requests';
export { RIGHTS_REQUESTS_PROJECTION, type RightsRequestListQuery, type RightsRequestSummary, countOpenRightsRequests, listRightsRequests, readCustomerRightsRequestIds, openRightsRequestsByDeadline, rightsRequestsProjection } from './rights-requests.projection';
export { assessSuppression } from './suppression';
