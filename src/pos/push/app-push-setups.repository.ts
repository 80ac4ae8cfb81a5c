import type { Executor } from '../../platform/db/database.js'

/** The set-up code a vendor app's push URL received last, and when; undefined before any. */
export interface AppVerificationCode {
  code: string
  receivedAt: Date
}

/** Keeps the code a vendor app's push URL just received, in place of any older one. */
export async function saveAppVerificationCode(db: Executor, posType: string, code: string, receivedAt: Date): Promise<void> {
  await db
    .insertInto('pos_app_push_setups')
    .values({ pos_type: posType, verification_code: code, verification_code_received_at: receivedAt })
    .onConflict((conflict) => conflict.column('pos_type').doUpdateSet({ verification_code: code, verification_code_received_at: receivedAt }))
    .execute()
}

export async function findAppVerificationCode(db: Executor, posType: string): Promise<AppVerificationCode | undefined> {
  const row = await db.selectFrom('pos_app_push_setups').selectAll().where('pos_type', '=', posType).executeTakeFirst()
  return row && { code: row.verification_code, receivedAt: new Date(row.verification_code_received_at) }
}
