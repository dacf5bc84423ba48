// The sealed HMAC key of the links mails carry (one row, made on first use).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  find: db.prepare<[], { sealed: Buffer }>('SELECT sealed FROM mail_signing_key WHERE id = 1'),
  insert: db.prepare<[Buffer]>('INSERT INTO mail_signing_key (id, sealed) VALUES (1, ?) ON CONFLICT (id) DO NOTHING'),
}));

export const findSealedSigningKey = (db: Db): Buffer | undefined => statements(db).find.get()?.sealed;
export const insertSealedSigningKey = (db: Db, sealed: Buffer): void => void statements(db).insert.run(sealed);
