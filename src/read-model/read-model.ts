// The read model: the one module that answers analytical questions over stored events and what the projector
// derived from them. Reports, events, people, analysis, attribution and share links ask it and nothing beneath it.
// Its interface is written in the questions' terms (scopes, ranges, filters, dimensions, limits, positions); no
// statement, table row or storage format leaves it. src/read-model/sqlite/ implements it over the embedded
// database; a second implementation (ClickHouse) passes the same contract suite (test/read-model/).
import type { AttributionQuestions } from './attribution-questions.ts';
import type { BehaviourQuestions } from './behaviour-questions.ts';
import type { DashboardQuestions } from './dashboard-questions.ts';
import type { EngagementQuestions } from './engagement-questions.ts';
import type { EventQuestions } from './event-questions.ts';
import type { FunnelQuestions } from './funnel-questions.ts';
import type { GoalQuestions } from './goal-questions.ts';
import type { PersonQuestions } from './person-questions.ts';
import type { ReportQuestions } from './report-questions.ts';
import type { TimeQuestions } from './time-questions.ts';

export interface ReadModel
  extends ReportQuestions,
    EventQuestions,
    PersonQuestions,
    FunnelQuestions,
    AttributionQuestions,
    BehaviourQuestions,
    GoalQuestions,
    EngagementQuestions,
    TimeQuestions,
    DashboardQuestions {}
