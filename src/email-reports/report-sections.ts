// The ranked sections of a report mail, each asked of the read model for the report's range. The extension point:
// a domain with more to say (goals, once src/goals/ exists: its conversions per goal) adds its section here, and the
// mail, its text part and the test send show it with no other change.
import type { ReadModel } from '../read-model/read-model.ts';
import type { Selection } from '../read-model/questions.ts';

export interface ReportSection {
  title: string;
  /** The label column's and the two figure columns' headings. */
  columns: [string, string, string];
  rows: { label: string; figures: [number, number] }[];
}

/** Builds one section for a selection (the report's range, the site's whole traffic without internal visits). */
export type ReportSectionSource = (readModel: ReadModel, selection: Selection, limit: number) => Promise<ReportSection>;

const topPages: ReportSectionSource = async (readModel, selection, limit) => {
  const { rows } = await readModel.ranking({ ...selection, by: 'path', order: 'pageviews', offset: 0, limit });
  return { title: 'Top pages', columns: ['Page', 'Visitors', 'Pageviews'], rows: rows.map((row) => ({ label: row.key, figures: [row.figures.visitors, row.figures.pageviews] })) };
};

const topSources: ReportSectionSource = async (readModel, selection, limit) => {
  const { rows } = await readModel.ranking({ ...selection, by: 'source', order: 'visits', offset: 0, limit });
  return { title: 'Top sources', columns: ['Source', 'Visitors', 'Visits'], rows: rows.map((row) => ({ label: row.key, figures: [row.figures.visitors, row.figures.visits] })) };
};

/** In the order the mail shows them. */
export const reportSections: readonly ReportSectionSource[] = [topPages, topSources];
