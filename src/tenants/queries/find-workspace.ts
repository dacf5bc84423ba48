// Looks a workspace up by slug or id.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface WorkspaceRow {
  id: string;
  slug: string;
  name: string;
  created_at: string;
  updated_at: string;
}

const statements = preparedOnce((db) => ({
  bySlug: db.prepare<[string], WorkspaceRow>('SELECT id, slug, name, created_at, updated_at FROM workspaces WHERE slug = ?'),
  byId: db.prepare<[string], WorkspaceRow>('SELECT id, slug, name, created_at, updated_at FROM workspaces WHERE id = ?'),
}));

export function findWorkspaceBySlug(db: Db, slug: string): WorkspaceRow | undefined {
  return statements(db).bySlug.get(slug);
}

export function findWorkspaceById(db: Db, id: string): WorkspaceRow | undefined {
  return statements(db).byId.get(id);
}
