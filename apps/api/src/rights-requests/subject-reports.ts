import { Inject, Injectable } from '@nestjs/common';
import { GeneralConsentEvent, GeneralConsentState, consentStreams, evolveGeneralConsent, readCustomerGeneralConsents } from '@ledger/consents';
import { canonicalJson } from '@ledger/event-store';
import { streams } from '@ledger/ledger';
import { conflict, notFound, sha256Hex } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import {
  ReportedGeneralConsent,
  RightsRequestDependencies,
  RightsRequestState,
  SUBJECT_REPORT_KINDS,
  SubjectRecords,
  SubjectReport,
  SubjectReportDigest,
  SuppressionAssessment,
  assessSuppression,
  checkSubjectReportAsOf,
  consentFacts,
  openUnlessErased,
  readConsentReferences,
  readCustomerRightsRequestIds,
  readRightsRequestFacts,
  renderSubjectReportPdf,
  subjectCiphertexts,
  subjectRecordsOf,
  subjectReportOf,
} from '@ledger/redec';
import { CAPTURE_DEPENDENCIES } from '../capture-dependencies';
import { consentIndexes, findConsents } from '../redec/consents/consent-reads';
import { RequestCommands, RequestContext } from '../request-commands';

/** A report and its two renderings: canonical JSON (sorted keys, no whitespace) and the Spanish PDF. */
export interface RenderedSubjectReport {
  report: SubjectReport;
  json: Buffer;
  pdf: Buffer;
}

/**
 * The subject's report (decision 0071): what the ledger holds about the data
 * subject of an access or portability request, as of an instant. The read
 * model only says where to look (the subject's consents, their accesses, the
 * subject's requests) and must have caught up with the ledger first; what is
 * shown is read from the store, so the same instant gives the same bytes.
 */
@Injectable()
export class SubjectReports {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: RightsRequestDependencies,
    private readonly readModel: ReadModel,
    private readonly commands: RequestCommands,
  ) {}

  /** The report answering the request, as of `asOf`, or now. */
  async render(rightsRequestId: string, asOf: number | undefined, context: RequestContext): Promise<RenderedSubjectReport> {
    const facts = await readRightsRequestFacts(this.deps.store, context.tenantId, rightsRequestId);
    const received = facts?.[0];
    if (received?.type !== 'RightsRequestReceived') throw notFound('rights request');
    const { kind, customerId, recordedAt } = received.data;
    if (!SUBJECT_REPORT_KINDS.includes(kind)) throw conflict('rights_request_without_subject_report', `A request of kind ${kind} is not answered with the subject's report; access and portability are.`);
    const instant = asOf ?? context.now;
    checkSubjectReportAsOf({ receiptRecordedAt: recordedAt }, instant, context.now, 'asOf');
    await this.commands.readModelCaughtUp();
    const report = await this.reportOf(rightsRequestId, kind, customerId, instant, context.tenantId);
    return { report, json: Buffer.from(canonicalJson(report)), pdf: renderSubjectReportPdf(report) };
  }

  /**
   * Where each of the subject's records stands for erasure now (decision
   * 0073): what the answer to a suppression records, read as the report is.
   */
  async assessSuppression(request: Pick<RightsRequestState, 'rightsRequestId' | 'kind' | 'customerId'>, context: RequestContext): Promise<SuppressionAssessment> {
    await this.commands.readModelCaughtUp();
    return assessSuppression(await this.reportOf(request.rightsRequestId, request.kind, request.customerId, context.now, context.tenantId), context.now);
  }

  /** What an answer records of the report it gave. */
  static digestOf({ report, json, pdf }: RenderedSubjectReport): SubjectReportDigest {
    return { asOf: report.asOf, jsonSha256: sha256Hex(json), pdfSha256: sha256Hex(pdf) };
  }

  private async reportOf(rightsRequestId: string, kind: SubjectReport['kind'], customerId: string, asOf: number, tenantId: string): Promise<SubjectReport> {
    return subjectReportOf({ rightsRequestId, kind }, await this.recordsOf(customerId, asOf, tenantId));
  }

  /**
   * What the ledger holds about the customer as of `asOf`: what a report
   * gives, and what the privacy center shows the data subject. The caller
   * makes sure the read model has caught up first.
   */
  async recordsOf(customerId: string, asOf: number, tenantId: string): Promise<SubjectRecords> {
    const { store } = this.deps;
    const [customer, redecConsents, generalConsents, rightsRequestIds] = await Promise.all([
      store.readStream(streams.customer(tenantId, customerId)),
      findConsents(this.readModel, consentIndexes.customer(tenantId, customerId)),
      readCustomerGeneralConsents(this.readModel, tenantId, customerId),
      readCustomerRightsRequestIds(this.readModel, tenantId, customerId),
    ]);
    const redecConsentFacts = await Promise.all(
      redecConsents.map(async ({ grant }) => (await consentFacts(store, tenantId, grant.redecConsentId, await readConsentReferences(this.readModel, tenantId, grant.redecConsentId), asOf)) ?? []),
    );
    const rightsRequests = (await Promise.all(rightsRequestIds.map((id) => readRightsRequestFacts(store, tenantId, id)))).filter((facts) => facts !== null);
    const opened = new Map<string, string | null>();
    for (const ciphertext of subjectCiphertexts(customer, rightsRequests)) opened.set(ciphertext, await openUnlessErased(this.deps.protection, tenantId, ciphertext));
    return subjectRecordsOf({
      tenantId,
      asOf,
      customer,
      redecConsents: redecConsentFacts,
      generalConsents: (await Promise.all(generalConsents.map((consent) => this.generalConsentAsOf(tenantId, consent, asOf)))).filter((consent) => consent !== null),
      rightsRequests,
      opened,
    });
  }

  /** A general consent as its facts recorded by `asOf` say; null when it was granted later. */
  private async generalConsentAsOf(tenantId: string, listed: GeneralConsentState, asOf: number): Promise<ReportedGeneralConsent | null> {
    const recorded = await this.deps.store.readStream(consentStreams.generalConsent(tenantId, listed.grant.consentId));
    const state = recorded
      .filter((event) => event.metadata.recordedAt <= asOf)
      .reduce<GeneralConsentState | null>((consent, event) => evolveGeneralConsent(consent, event as unknown as GeneralConsentEvent, tenantId), null);
    if (!state) return null;
    const { consentId, templateKey, configurationVersion, consentTitle, channel, grantedAt } = state.grant;
    return { consentId, templateKey, configurationVersion, consentTitle, channel, grantedAt, revokedAt: state.revocation?.revokedAt ?? null };
  }
}
