// The visitor-set containers of one dimension value over a run of periods of one grain.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface ContainerRangeParams {
  site_id: string;
  dim: number;
  value_id: number;
  internal: number;
  grain: number;
  from_period: number;
  to_period: number;
}

const statements = preparedOnce((db) => ({
  range: db
    .prepare<ContainerRangeParams, [number, number, Buffer]>(
      `SELECT period, chunk, members FROM report_visitor_sets
        WHERE site_id = :site_id AND dim = :dim AND value_id = :value_id AND internal = :internal AND grain = :grain
          AND period BETWEEN :from_period AND :to_period`,
    )
    .raw(),
}));

/** [period, chunk, members] rows. */
export function listVisitorContainers(db: Db, params: ContainerRangeParams): [number, number, Buffer][] {
  return statements(db).range.all(params);
}
